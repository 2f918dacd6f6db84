import Bonding
import ControlSocket
import GAP
import HCI
import Peripheral

/// Why the daemon could not start or had to stop; every message says what to do.
public enum DaemonError: Error, Equatable, Sendable, CustomStringConvertible {
    case invalidOption(String, String)
    case stateFile(path: String, reason: String)
    case transport(HCITransportError)
    case controller(HCIHostError)
    case peripheral(GAPError)
    case peripheralManager(PeripheralError)
    case controlSocket(ControlServerError)
    case bondStore(BondStoreError)

    public var description: String {
        switch self {
        case let .invalidOption(option, reason): return "invalid \(option): \(reason)"
        case let .stateFile(path, reason): return "state file \(path): \(reason)"
        case let .transport(error): return error.description
        case let .controller(error): return Self.advised(error)
        case let .peripheral(error): return error.description
        case let .peripheralManager(.controller(error)): return Self.advised(error)
        case let .peripheralManager(error): return error.description
        case let .controlSocket(error): return "control socket: \(error)"
        case let .bondStore(error): return error.description
        }
    }

    private static func advised(_ error: HCIHostError) -> String {
        UnresponsiveController.explains(error) ? "\(error); \(UnresponsiveController.advice)" : error.description
    }
}
