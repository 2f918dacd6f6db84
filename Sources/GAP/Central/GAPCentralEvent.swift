import HCI

/// What the central role reports, in order. Only links where we are the central appear here.
public enum GAPCentralEvent: Sendable {
    case scanReport(ScanReport)
    /// Scanning could not be resumed (after a controller reset or a connection attempt) and is off.
    case scanningFailed(GAPError)
    case connected(Link)
    case disconnected(Link, reason: HCIStatus)
    case connectionUpdated(Link)
    case dataLengthChanged(Link)
    /// Encryption started, was refreshed or failed (e.g. 0x06 PIN or Key Missing: the peripheral
    /// has no key); `link.security` says what it is now.
    case encryptionChanged(Link, status: HCIStatus)
    case remoteVersion(Link)
    /// The controller is being reset after a fault; links are reported disconnected first.
    case controllerResetting(HCIHostError)
    case controllerRecovered(ControllerInfo)
    case controllerFailed(HCIHostError)
    case transportClosed(HCITransportError?)
}

extension GAPCentralEvent {
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
