import HCI

/// What the peripheral role reports, in order.
public enum GAPEvent: Sendable {
    case advertisingStarted(AdvertisingPlan)
    case advertisingStopped
    case connected(Link)
    case disconnected(Link, reason: HCIStatus)
    case connectionUpdated(Link)
    case dataLengthChanged(Link)
    /// Encryption started, was refreshed or failed; `link.security` says what it is now.
    case encryptionChanged(Link, status: HCIStatus)
    case remoteVersion(Link)
    /// The controller is being reset after a fault; links are reported disconnected first.
    case controllerResetting(HCIHostError)
    case controllerRecovered(ControllerInfo)
    case controllerFailed(HCIHostError)
    case transportClosed(HCITransportError?)
}
