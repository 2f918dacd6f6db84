import Bonding
import ControlSocket
import GAP
import HCI
import Peripheral

/// Why the daemon could not start or had to stop; every message says what to do.
public enum DaemonError: Error, Equatable, Sendable, CustomStringConvertible {
    case invalidOption(String, String)
    /// A setting the file allows but this system cannot meet (a group that does not exist).
    case configuration(key: String, reason: String)
    case stateFile(path: String, reason: String)
    /// A state file whose content is wrong (not unreadable): restarting cannot mend it.
    case damagedStateFile(path: String, reason: String)
    case transport(HCITransportError)
    case controller(HCIHostError)
    case peripheral(GAPError)
    case peripheralManager(PeripheralError)
    case controlSocket(ControlServerError)
    case bondStore(BondStoreError)

    public var description: String {
        switch self {
        case let .invalidOption(option, reason): return "invalid \(option): \(reason)"
        case let .configuration(key, reason): return "\(key): \(reason)"
        case let .stateFile(path, reason), let .damagedStateFile(path, reason): return "state file \(path): \(reason)"
        case let .transport(error): return error.description
        case let .controller(error): return Self.advised(error)
        case let .peripheral(error): return error.description
        case let .peripheralManager(.controller(error)): return Self.advised(error)
        case let .peripheralManager(error): return error.description
        case let .controlSocket(error): return "control socket: \(error)"
        case let .bondStore(error): return error.description
        }
    }

    /// EX_DATAERR (sysexits.h) for a damaged state file, which the unit's RestartPreventExitStatus=
    /// names beside EX_CONFIG: restarting every 2 s cannot mend it. 1 for everything else.
    public static let damagedStateExitStatus: Int32 = 65

    /// EX_CONFIG, as for a file the loader refuses: editing the file is the fix, not a restart.
    public static let configurationExitStatus: Int32 = 78

    /// EX_CANTCREAT for a capture file (`--btsnoop`) that cannot be created: it exists (captures
    /// are never overwritten) or its directory is not writable; a restart would meet the same.
    public static let captureFileExitStatus: Int32 = 73

    public var exitStatus: Int32 {
        switch self {
        case .damagedStateFile: return Self.damagedStateExitStatus
        case .configuration: return Self.configurationExitStatus
        case .transport(.snoopFileFailed): return Self.captureFileExitStatus
        default: return 1
        }
    }

    private static func advised(_ error: HCIHostError) -> String {
        UnresponsiveController.explains(error) ? "\(error); \(UnresponsiveController.advice)" : error.description
    }
}
