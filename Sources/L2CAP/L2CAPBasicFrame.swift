import BLECore

/// Why an inbound L2CAP frame was not trusted.
public enum L2CAPFrameError: Error, Equatable, Sendable, CustomStringConvertible {
    case truncated(Int)
    case lengthMismatch(declared: Int, actual: Int)

    public var description: String {
        switch self {
        case let .truncated(count): return "L2CAP frame of \(count) bytes is shorter than its 4-byte header"
        case let .lengthMismatch(declared, actual): return "L2CAP header announces \(declared) bytes but \(actual) follow"
        }
    }
}

/// A B-frame: the basic L2CAP header (length, channel ID) and its payload (Vol 3 Part A 3.1).
public struct L2CAPBasicFrame: Sendable, Equatable {
    public var channelID: UInt16
    public var payload: [UInt8]

    public init(channelID: UInt16, payload: [UInt8]) {
        self.channelID = channelID
        self.payload = payload
    }

    /// Parses a complete PDU as the ACL layer reassembled it; the length must match exactly.
    public init(pdu: [UInt8]) throws(L2CAPFrameError) {
        guard pdu.count >= 4 else { throw .truncated(pdu.count) }
        let declared = Int(pdu[0]) | Int(pdu[1]) << 8
        guard declared == pdu.count - 4 else { throw .lengthMismatch(declared: declared, actual: pdu.count - 4) }
        channelID = UInt16(pdu[2]) | UInt16(pdu[3]) << 8
        payload = Array(pdu[4...])
    }

    /// The PDU with its header, ready for the ACL layer.
    public var pdu: [UInt8] { Self.pdu(channelID: channelID, payload: payload) }

    public static func pdu(channelID: UInt16, payload: [UInt8]) -> [UInt8] {
        var bytes = [UInt8]()
        bytes.reserveCapacity(4 + payload.count)
        bytes.append(UInt8(truncatingIfNeeded: payload.count))
        bytes.append(UInt8(truncatingIfNeeded: payload.count >> 8))
        bytes.append(UInt8(truncatingIfNeeded: channelID))
        bytes.append(UInt8(truncatingIfNeeded: channelID >> 8))
        bytes.append(contentsOf: payload)
        return bytes
    }
}
