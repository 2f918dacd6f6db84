import HCI

/// What the peripheral role reports, in order.
public enum GAPEvent: Sendable {
    case advertisingStarted(AdvertisingPlan)
    case advertisingStopped
    case connected(LEConnection)
    case disconnected(LEConnection, reason: HCIStatus)
    case connectionUpdated(LEConnection)
    case dataLengthChanged(LEConnection)
    case encryptionChanged(LEConnection, status: HCIStatus)
    case remoteVersion(LEConnection)
    /// The controller is being reset after a fault; connections are reported disconnected first.
    case controllerResetting(HCIHostError)
    case controllerRecovered(ControllerInfo)
    case controllerFailed(HCIHostError)
    case transportClosed(HCITransportError?)
}
