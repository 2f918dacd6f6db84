/// What the host reports to the layers above (L2CAP, GAP).
public enum HCIHostEvent: Sendable {
    /// A controller event the host itself does not consume (connections, encryption, LE meta events…).
    case controllerEvent(HCIEvent)
    /// A complete, reassembled L2CAP PDU (basic header included) from a connection.
    case aclData(handle: UInt16, pdu: [UInt8])
    /// The controller is being reset after a fault; every connection is gone.
    case controllerResetting(reason: HCIHostError)
    /// Recovery finished; the controller is initialised again and upper layers must reapply their state.
    case controllerRecovered(ControllerInfo)
    /// Recovery failed repeatedly; the controller is unusable.
    case controllerFailed(HCIHostError)
    /// The link to the controller is gone (`nil` after an orderly shutdown).
    case transportClosed(HCITransportError?)
}
