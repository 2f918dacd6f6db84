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

extension GAPEvent {
    /// The controller life-cycle event this is, if it is one.
    public var lifecycle: ControllerLifecycle? {
        switch self {
        case .controllerResetting: return .resetting
        case .controllerRecovered: return .recovered
        case let .controllerFailed(error): return .failed(error)
        case let .transportClosed(error): return .transportClosed(error)
        default: return nil
        }
    }
}
