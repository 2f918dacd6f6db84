import ATT
import BLECore
import VirtualController

/// Why a procedure of the demo's GATT client failed. Every inbound PDU is parsed totally: a
/// malformed or inconsistent answer becomes one of these, never a trap.
enum DemoGATTError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The server answered the request with an Error Response.
    case attribute(ATTErrorCode, request: ATTOpcode, handle: UInt16)
    /// The answer to the request was not a valid ATT PDU.
    case malformedResponse(ATTDecodingError)
    /// The answer decoded but breaks a rule of the procedure (handles out of range, bad lengths).
    case invalidResponse(request: ATTOpcode, reason: String)
    /// The server did not answer within the ATT transaction timeout; the bearer is unusable now.
    case timedOut(ATTOpcode, after: Duration)
    /// The link dropped, before or while the request was outstanding.
    case disconnected
    /// A second request was started while one was outstanding (ATT allows one at a time).
    case requestInProgress(ATTOpcode)
    /// The task waiting for the answer was cancelled.
    case cancelled
    /// The request could not be put on the link.
    case sendFailed(VirtualCentralError)
    /// Subscribing needs a notify or indicate property and a Client Characteristic Configuration descriptor.
    case notSubscribable(BluetoothUUID, valueHandle: UInt16)

    /// Errors after which the bearer cannot carry further requests: the session must end.
    var endsSession: Bool {
        switch self {
        case .timedOut, .disconnected, .cancelled, .sendFailed: return true
        case .attribute, .malformedResponse, .invalidResponse, .requestInProgress, .notSubscribable: return false
        }
    }

    var description: String {
        switch self {
        case let .attribute(code, request, handle):
            return "\(request) on handle \(hex4(handle)) failed: \(code.name) (\(code.explanation))"
        case let .malformedResponse(error):
            return "malformed response: \(error)"
        case let .invalidResponse(request, reason):
            return "invalid answer to \(request): \(reason); the server's attribute table is inconsistent"
        case let .timedOut(request, after):
            return "no answer to \(request) within \(after); the ATT bearer is unusable until the link is reconnected"
        case .disconnected:
            return "the link dropped; reconnect to continue"
        case let .requestInProgress(request):
            return "\(request) was started while another request was outstanding; run one procedure at a time"
        case .cancelled:
            return "the request was cancelled"
        case let .sendFailed(error):
            return "could not send: \(error)"
        case let .notSubscribable(uuid, valueHandle):
            return "characteristic \(uuid) (value handle \(hex4(valueHandle))) has no notify/indicate property or no Client Characteristic Configuration descriptor"
        }
    }
}

/// "0x002A": handles as the Core spec and btmon print them.
func hex4(_ value: UInt16) -> String {
    let digits = String(value, radix: 16, uppercase: true)
    return "0x" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
}
