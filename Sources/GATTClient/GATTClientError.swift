import ATT
import BLECore

/// Why a GATT client procedure failed. Every byte from the peer is parsed totally: a malformed or
/// inconsistent answer becomes one of these, never a trap or a hang.
public enum GATTClientError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The server answered the request with an Error Response.
    case attError(ATTErrorCode, handle: UInt16, request: ATTOpcode)
    /// No answer within the ATT transaction timeout (Core Vol 3 Part F 3.3.3); the bearer is dead now.
    case timeout
    /// The link dropped before or while the request was outstanding.
    case disconnected
    /// The server answered the outstanding request with a PDU of another kind.
    case unexpectedResponse(expected: ATTOpcode, got: ATTOpcode)
    /// The answer could not be decoded, or it breaks a rule of the procedure (handles out of range or
    /// not advancing, a Prepare Write echo that differs, an Error Response for another request).
    case malformedResponse(String)
    /// The handle or characteristic is not one the client can address (0x0000, or no longer cached).
    case invalidHandle
    /// The value is longer than the procedure can carry (512 octets, or ATT_MTU − 3 without response).
    case valueTooLong(length: Int, maximum: Int)
    /// An earlier transaction timed out: the spec forbids further ATT PDUs on this bearer.
    case bearerClosed
    /// The characteristic does not allow the operation (for example subscribing without notify/indicate).
    case notPermitted(String)
    /// The request could not be handed to the link.
    case sendFailed

    public var description: String {
        switch self {
        case let .attError(code, handle, request):
            return "\(request.name ?? request.description) on handle \(handle.hexLiteral) failed: \(code.nameAndCode) — \(code.explanation)"
        case .timeout:
            return "the server did not answer within the ATT transaction timeout; disconnect and reconnect to continue"
        case .disconnected:
            return "the link dropped; reconnect to continue"
        case let .unexpectedResponse(expected, got):
            return "expected \(expected) but the server sent \(got)"
        case let .malformedResponse(reason):
            return "malformed answer from the server: \(reason)"
        case .invalidHandle:
            return "invalid attribute handle; rediscover the services"
        case let .valueTooLong(length, maximum):
            return "value of \(length) octets is longer than the \(maximum) this write can carry"
        case .bearerClosed:
            return "an earlier ATT transaction timed out, so this bearer may carry no more requests; reconnect to continue"
        case let .notPermitted(reason):
            return "not permitted: \(reason)"
        case .sendFailed:
            return "the request could not be sent on the link"
        }
    }
}
