import HCI

/// The state of a role's controller, as CoreBluetooth reports it (`CBManagerState`).
public enum RadioState: Sendable, Equatable {
    case unknown
    case poweredOn
    /// The controller is being reset after a fault; connections are gone.
    case resetting
    case unsupported(String)
    case unauthorized(String)
    /// The controller went away.
    case poweredOff

    /// The state a failed controller start-up leaves.
    public init(failedStart error: HCIHostError) {
        switch error {
        case let .transport(.permissionDenied(device, hint)): self = .unauthorized("\(device): \(hint)")
        case let .unsupportedController(reason): self = .unsupported(reason)
        default: self = .poweredOff
        }
    }
}

/// Why the controller is gone for good (the state becomes `.poweredOff` and the events end).
public enum ControllerLoss: Sendable, CustomStringConvertible {
    /// The transport closed: the adapter was unplugged, the serial port failed, the TCP peer left.
    case transportClosed(HCITransportError?)
    /// It stopped answering and resets did not bring it back.
    case resetsFailed(HCIHostError)

    public var description: String {
        switch self {
        case let .transportClosed(error): return "controller link lost" + (error.map { ": \($0)" } ?? "")
        case let .resetsFailed(.transport(error)): return "\(error); resets did not help"
        case let .resetsFailed(error): return "controller unusable after repeated resets: \(error)"
        }
    }
}

/// A controller life-cycle event as both roles' GAP report it, and what it means for the facade:
/// the state to move to and, when the controller is gone for good, the loss to report.
public enum ControllerLifecycle: Sendable {
    case resetting
    case recovered
    case failed(HCIHostError)
    case transportClosed(HCITransportError?)

    public var state: RadioState {
        switch self {
        case .resetting: return .resetting
        case .recovered: return .poweredOn
        case .failed, .transportClosed: return .poweredOff
        }
    }

    /// Set when the events end here.
    public var loss: ControllerLoss? {
        switch self {
        case .resetting, .recovered: return nil
        case let .failed(error): return .resetsFailed(error)
        case let .transportClosed(error): return .transportClosed(error)
        }
    }
}
