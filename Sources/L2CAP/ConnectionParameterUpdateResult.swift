import HCI

/// How a central answered our Connection Parameter Update Request.
public enum ConnectionParameterUpdateResult: Sendable, Equatable {
    case accepted
    case rejected
    /// The central does not understand the command (it answered Command Reject).
    case commandRejected(reason: UInt16)
    /// No answer within the signaling timeout (Vol 3 Part A 6.2.1, RTX).
    case timedOut
    case connectionClosed
    case sendFailed(ACLSendError)
}
