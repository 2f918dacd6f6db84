/// Failures of the host's dialogue with the controller, phrased for the person running the daemon.
public enum HCIHostError: Error, Equatable, Sendable, CustomStringConvertible {
    case commandFailed(HCIOpcode, HCIStatus)
    case commandTimeout(HCIOpcode, milliseconds: Int)
    case malformedResponse(HCIOpcode, HCIDecodingError)
    /// The command was abandoned because the controller is being reset and re-initialised.
    case abortedByReset(HCIOpcode, reason: String)
    case hardwareError(code: UInt8)
    case notReady(HCIOpcode)
    case unsupportedController(String)
    case transport(HCITransportError)
    /// A command for a link that closed before it could be sent (its handle may belong to another link now).
    case linkClosed(HCIOpcode, LinkID)
    case shutDown

    public var description: String {
        switch self {
        case let .commandFailed(opcode, status):
            return "controller rejected \(opcode): \(status)"
        case let .commandTimeout(opcode, milliseconds):
            return "controller did not answer \(opcode) within \(milliseconds) ms"
        case let .malformedResponse(opcode, error):
            return "controller sent a malformed answer to \(opcode): \(error)"
        case let .abortedByReset(opcode, reason):
            return "\(opcode) abandoned: the controller is being reset (\(reason))"
        case let .hardwareError(code):
            return "controller reported hardware error 0x\(String(code, radix: 16))"
        case let .notReady(opcode):
            return "cannot send \(opcode): the controller is not initialised"
        case let .unsupportedController(reason):
            return "this controller cannot be used: \(reason)"
        case let .transport(error):
            return error.description
        case let .linkClosed(opcode, link):
            return "\(opcode) not sent: \(link) closed first"
        case .shutDown:
            return "the host was shut down"
        }
    }
}
