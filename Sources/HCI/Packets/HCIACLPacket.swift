import BLECore

/// Packet_Boundary_Flag of an ACL data packet (Core spec Vol 4 Part E 5.4.2).
public enum ACLPacketBoundary: UInt8, Sendable {
    /// Host to controller: first fragment of a non-automatically-flushable L2CAP PDU (the only start LE uses).
    case firstNonFlushable = 0b00
    case continuing = 0b01
    /// Controller to host: first fragment of an L2CAP PDU.
    case firstFlushable = 0b10
    /// A complete L2CAP PDU; not allowed on LE-U, accepted defensively as a start.
    case complete = 0b11

    public var startsPDU: Bool { self != .continuing }
}

/// One ACL data packet: header fields and the fragment it carries.
public struct HCIACLPacket: Sendable, Equatable {
    public static let headerLength = 4

    public var handle: UInt16
    public var boundary: ACLPacketBoundary
    public var broadcast: UInt8
    public var data: [UInt8]

    public init(handle: UInt16, boundary: ACLPacketBoundary, broadcast: UInt8 = 0, data: [UInt8]) {
        self.handle = handle & 0x0FFF
        self.boundary = boundary
        self.broadcast = broadcast & 0x03
        self.data = data
    }

    /// Decodes an ACL packet body (without the H4 indicator), checking the length field.
    public init(body: ArraySlice<UInt8>) throws(HCIDecodingError) {
        var reader = ByteReader(body)
        let (header, length) = try reader.decoding("ACL header") { r throws(ByteReaderError) in (try r.readUInt16(), try r.readUInt16()) }
        guard reader.remainingCount == Int(length) else {
            throw .unexpectedLength("ACL packet", expected: Int(length), actual: reader.remainingCount)
        }
        self.init(handle: header & 0x0FFF, boundary: ACLPacketBoundary(rawValue: UInt8((header >> 12) & 0x3)) ?? .continuing,
                  broadcast: UInt8(header >> 14), data: reader.readRemaining())
    }

    /// The H4 frame; written in one buffer so transports need no further copies.
    public var packet: HCIPacket {
        Self.frame(handle: handle, boundary: boundary, broadcast: broadcast, fragment: data[...])
    }

    /// Builds an H4 ACL frame straight from a fragment of an L2CAP PDU.
    /// `broadcast` is the Broadcast_Flag (bits 14-15); LE hosts always send 0b00.
    public static func frame(handle: UInt16, boundary: ACLPacketBoundary, broadcast: UInt8 = 0,
                             fragment: ArraySlice<UInt8>) -> HCIPacket {
        var bytes = [UInt8]()
        bytes.reserveCapacity(1 + headerLength + fragment.count)
        let header = (handle & 0x0FFF) | UInt16(boundary.rawValue) << 12 | UInt16(broadcast & 0x03) << 14
        bytes.append(HCIPacketType.acl.rawValue)
        bytes.append(UInt8(truncatingIfNeeded: header))
        bytes.append(UInt8(truncatingIfNeeded: header >> 8))
        bytes.append(UInt8(truncatingIfNeeded: fragment.count))
        bytes.append(UInt8(truncatingIfNeeded: fragment.count >> 8))
        bytes.append(contentsOf: fragment)
        return HCIPacket(h4Bytes: bytes) ?? HCIPacket(type: .acl, body: Array(bytes.dropFirst()))
    }
}
