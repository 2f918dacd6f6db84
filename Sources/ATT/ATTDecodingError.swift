import BLECore

/// Why bytes received on the ATT bearer are not a valid PDU. Every case but `.empty` carries the
/// opcode so a server can answer Invalid PDU for that request and keep the bearer usable.
public enum ATTDecodingError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The L2CAP payload had no opcode octet at all.
    case empty
    /// A fixed field was cut off.
    case truncated(opcode: ATTOpcode, ByteReaderError)
    /// The PDU had more octets than its fixed layout allows.
    case unexpectedLength(opcode: ATTOpcode, expected: Int, actual: Int)
    /// The fields are present but break a rule of the PDU's layout.
    case malformed(opcode: ATTOpcode, reason: String)

    /// The opcode of the PDU that failed, when there was one.
    public var opcode: ATTOpcode? {
        switch self {
        case .empty: return nil
        case let .truncated(opcode, _), let .unexpectedLength(opcode, _, _), let .malformed(opcode, _): return opcode
        }
    }

    /// The Error Response a server sends for this failure, or nil when none is due: commands and
    /// non-requests are dropped silently (3.3 and 3.4.9), and an empty PDU has no opcode to answer.
    public var errorResponse: ATTPDU? {
        guard let opcode, ATTPDU.answersAsRequest(opcode) else { return nil }
        return .errorResponse(for: opcode, handle: 0x0000, error: .invalidPDU)
    }

    public var description: String {
        switch self {
        case .empty:
            return "empty ATT PDU (no opcode); the peer sent a zero-length frame on the ATT channel"
        case let .truncated(opcode, error):
            return "\(opcode) is truncated (\(error)); the peer sent an incomplete PDU"
        case let .unexpectedLength(opcode, expected, actual):
            return "\(opcode) must be \(expected) octets but was \(actual); the peer sent a malformed PDU"
        case let .malformed(opcode, reason):
            return "\(opcode) is malformed: \(reason)"
        }
    }
}
