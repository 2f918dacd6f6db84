import BLECore
import HCI

/// Cuts an H4 byte stream (UART, TCP) into packets. Feed it whatever `read` returned; it keeps the
/// tail of an incomplete packet until the rest arrives.
///
/// Memory is bounded: it never buffers more than one incomplete packet (at most
/// `maximumPacketSize` bytes) plus the chunk being fed.
public struct H4StreamFramer: Sendable {
    /// Indicator + the longest header (4 bytes) + the largest 16-bit payload length.
    public static let maximumPacketSize = 1 + 4 + 65535

    private var pending: [UInt8] = []

    public init() {}

    /// Bytes held back waiting for the rest of a packet.
    public var bufferedByteCount: Int { pending.count }

    /// Appends `chunk` and hands every packet it completed to `deliver`, in stream order.
    ///
    /// Throws `framingLost` when a packet starts with an unknown indicator: after that the stream
    /// position is meaningless, so the buffer is discarded and the caller must close the link.
    /// Packets that preceded the bad byte in the same chunk have been delivered by then.
    public mutating func feed(
        _ chunk: some Collection<UInt8>, deliver: (HCIPacket) -> Void
    ) throws(HCITransportError) {
        pending.append(contentsOf: chunk)
        var start = 0
        while start < pending.count {
            let indicator = pending[start]
            guard let type = HCIPacketType(rawValue: indicator) else {
                pending.removeAll()
                throw .framingLost(
                    "unknown packet indicator 0x\([indicator].hexString) (expected 0x01-0x05); check the baud rate and flow control match the controller, then reopen the transport"
                )
            }
            let headerLength = Self.headerLength(of: type)
            let headerStart = start + 1
            guard pending.count - headerStart >= headerLength else { break }
            let header = pending[headerStart..<(headerStart + headerLength)]
            guard let payloadLength = Self.payloadLength(of: type, header: header) else { break }
            let total = 1 + headerLength + payloadLength
            guard pending.count - start >= total else { break }
            if let packet = HCIPacket(h4Bytes: Array(pending[start..<(start + total)])) {
                deliver(packet)
            }
            start += total
        }
        if start > 0 { pending.removeFirst(start) }
    }

    /// Header sizes from Core spec Vol 4 Part E 5.4 (ISO: 5.4.5).
    static func headerLength(of type: HCIPacketType) -> Int {
        switch type {
        case .command: return 3
        case .acl: return 4
        case .sco: return 3
        case .event: return 2
        case .iso: return 4
        }
    }

    /// The payload length field of a complete header; `nil` only if `header` is short.
    static func payloadLength(of type: HCIPacketType, header: ArraySlice<UInt8>) -> Int? {
        var reader = ByteReader(header)
        do {
            switch type {
            case .command:
                try reader.skip(2)  // opcode
                return Int(try reader.readUInt8())
            case .acl:
                try reader.skip(2)  // handle + flags
                return Int(try reader.readUInt16())
            case .sco:
                try reader.skip(2)
                return Int(try reader.readUInt8())
            case .event:
                try reader.skip(1)  // event code
                return Int(try reader.readUInt8())
            case .iso:
                try reader.skip(2)
                return Int(try reader.readUInt16() & 0x3FFF)  // top two bits are RFU
            }
        } catch {
            return nil
        }
    }
}
