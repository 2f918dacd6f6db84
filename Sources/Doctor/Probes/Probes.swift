import BridgeConfiguration
import ControlSocket
import Sensors

/// The running daemon as its control socket shows it. Blocking; bounded by the client's reply timeout.
public protocol DaemonProbe: Sendable {
    func status(socket: String) -> Result<StatusSnapshot, ControlClientError>
}

/// systemd's view of a unit (`systemctl is-active` / `is-enabled`). Blocking; bounded in time.
public protocol ServiceManagerProbe: Sendable {
    func query(_ query: UnitQuery, unit: String) -> UnitAnswer
}

/// One read of a configured sensor through its real driver, as the daemon would make it.
/// Blocking; the doctor bounds it in time.
public protocol SensorReader: Sendable {
    func read(_ sensor: SensorConfiguration, board: BoardProfile) -> SensorStatus
}

/// Finds a GPIO line by name (or offset) on a chip without requesting it, so a running daemon's
/// lines are not disturbed. Blocking.
public protocol GPIOLineFinder: Sendable {
    /// The line's offset on the chip.
    func find(line: String, chip: String) -> Result<Int, GPIOError>
}

public enum UnitQuery: String, Sendable, Equatable {
    case isActive = "is-active"
    case isEnabled = "is-enabled"
}

/// What systemctl said, or why it said nothing usable.
public enum UnitAnswer: Sendable, Equatable {
    /// The first word systemctl printed on stdout: `active`, `failed`, `enabled`, `not-found`, ...
    case state(String)
    /// No systemctl, no systemd as init, a time-out: `reason` says which.
    case unavailable(reason: String)

    /// The first word of systemctl's stdout; without one, the first line of stderr as the reason.
    /// Total: any bytes give an answer.
    public static func parse(standardOutput: String, standardError: String) -> UnitAnswer {
        let word = standardOutput.split(whereSeparator: { $0 == "\n" || $0 == " " || $0 == "\t" || $0 == "\r" }).first
        if let word, word.count <= 64, word.allSatisfy({ $0.isLetter || $0 == "-" }) {
            return .state(word.lowercased())
        }
        let reason = standardError.split(whereSeparator: { $0 == "\n" }).first.map { $0.trimmingWhitespace() } ?? ""
        return .unavailable(reason: reason.isEmpty ? "systemctl gave no answer" : String(reason.prefix(200)))
    }
}
