import BLECore

/// The H4 packet indicator (Core spec Vol 4 Part A 2) that precedes every packet on UART, TCP and
/// the Linux HCI socket.
public enum HCIPacketType: UInt8, Sendable, CustomStringConvertible {
    case command = 0x01
    case acl = 0x02
    case sco = 0x03
    case event = 0x04
    case iso = 0x05

    public var description: String {
        switch self {
        case .command: return "command"
        case .acl: return "ACL"
        case .sco: return "SCO"
        case .event: return "event"
        case .iso: return "ISO"
        }
    }
}

/// One HCI packet as it travels in H4 framing: the indicator byte followed by the packet itself.
/// Keeping the indicator in the same buffer lets every transport write it with a single system call.
public struct HCIPacket: Sendable, Equatable, CustomStringConvertible {
    public let h4Bytes: [UInt8]

    /// Wraps a complete H4 frame; `nil` when it is empty or the indicator is unknown.
    public init?(h4Bytes: [UInt8]) {
        guard let first = h4Bytes.first, HCIPacketType(rawValue: first) != nil else { return nil }
        self.h4Bytes = h4Bytes
    }

    public init(type: HCIPacketType, body: [UInt8]) {
        var bytes = [UInt8]()
        bytes.reserveCapacity(body.count + 1)
        bytes.append(type.rawValue)
        bytes.append(contentsOf: body)
        h4Bytes = bytes
    }

    public var type: HCIPacketType { HCIPacketType(rawValue: h4Bytes[0]) ?? .event }

    /// The packet without the H4 indicator.
    public var body: ArraySlice<UInt8> { h4Bytes[1...] }

    public var description: String { "\(type) \(body.hexString)" }
}
