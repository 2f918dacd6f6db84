import Bonding
import HCI

/// Why the stack could not start, or a role could not attach to it.
public enum BLEStackError: Error, Equatable, Sendable, CustomStringConvertible {
    case controller(HCIHostError)
    case bondStore(BondStoreError)
    /// A facade of this role runs on the stack already.
    case roleTaken(HCIRole)
    /// The caller was cancelled while the controller was being started.
    case cancelled

    public var description: String {
        switch self {
        case let .controller(error): return "the controller did not start: \(error)"
        case let .bondStore(error): return "the bonds could not be loaded: \(error)"
        case let .roleTaken(role): return "a \(role) role already runs on this stack; use that one"
        case .cancelled: return "cancelled while the controller was starting"
        }
    }
}
