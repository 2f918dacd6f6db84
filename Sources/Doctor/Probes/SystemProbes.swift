import BLECore
import ChildProcesses
import BridgeConfiguration
import ControlSocket
import SensorBridge
import Sensors

/// The daemon's status through `ControlClient`, as `blesensor status` gets it.
public struct ControlSocketProbe: DaemonProbe {
    public var replyTimeout: Duration

    public init(replyTimeout: Duration = .seconds(3)) {
        self.replyTimeout = replyTimeout
    }

    public func status(socket: String) -> Result<StatusSnapshot, ControlClientError> {
        do {
            let client = try ControlClient.connect(path: socket, replyTimeout: replyTimeout)
            defer { client.close() }
            return .success(try client.status())
        } catch {
            return .failure(error)
        }
    }
}

/// `systemctl is-active|is-enabled UNIT`, killed if it takes longer than `timeout` (a hung D-Bus).
public struct SystemctlProbe: ServiceManagerProbe {
    public var executable: String
    public var timeout: Duration
    public var clock: any HostClock

    public init(executable: String, timeout: Duration = .seconds(5), clock: any HostClock = SystemClock.shared) {
        self.executable = executable
        self.timeout = timeout
        self.clock = clock
    }

    /// systemctl where Debian and Raspberry Pi OS install it; nil without one.
    public static func find(in root: SystemRoot) -> SystemctlProbe? {
        ["/usr/bin/systemctl", "/bin/systemctl"].first { root.info($0)?.kind == .regular }.map { SystemctlProbe(executable: root.resolve($0)) }
    }

    public func query(_ query: UnitQuery, unit: String) -> UnitAnswer {
        // A plain, untranslated answer with no pager or colours, whatever the caller's locale.
        let environment = ["LC_ALL": "C", "SYSTEMD_PAGER": "", "SYSTEMD_COLORS": "0", "PATH": "/usr/sbin:/usr/bin:/sbin:/bin"]
        switch ChildProcess.run(executable, arguments: [query.rawValue, unit], environment: environment,
                                timeout: timeout, clock: clock) {
        case let .success(result): return UnitAnswer.parse(standardOutput: result.standardOutput, standardError: result.standardError)
        case let .failure(error): return .unavailable(reason: error.description)
        }
    }
}

/// Reads through `SensorSourceFactory`, the same sources the daemon's pollers use (simulated chips
/// on the simulated board).
public struct DriverSensorReader: SensorReader {
    public init() {}

    public func read(_ sensor: SensorConfiguration, board: BoardProfile) -> SensorStatus {
        let factory = SensorSourceFactory(board: board, simulation: board.simulated ? SimulatedBoard() : nil)
        return SingleRead.status(of: sensor, factory: factory)
    }
}

/// Looks lines up with libgpiod (`LinuxGPIOChip`), opening the chip inside the doctor's root.
public struct LibgpiodLineFinder: GPIOLineFinder {
    public var root: SystemRoot

    public init(root: SystemRoot) {
        self.root = root
    }

    public func find(line: String, chip: String) -> Result<Int, GPIOError> {
        do {
            let opened = try LinuxGPIOChip(name: GPIOChipName.devicePath(chip).map(root.resolve) ?? chip)
            return .success(try opened.line(line).offset)
        } catch {
            return .failure(error)
        }
    }
}

/// Board files name chips as `gpiochip0`, `/dev/gpiochip0` or a bare number, as libgpiod takes
/// them; any other name is a chip label, which only libgpiod can resolve.
enum GPIOChipName {
    static func devicePath(_ chip: String) -> String? {
        if chip.hasPrefix("/") { return chip }
        if let number = Int(chip), number >= 0 { return "/dev/gpiochip\(number)" }
        if chip.hasPrefix("gpiochip"), Int(chip.dropFirst(8)) != nil { return "/dev/" + chip }
        return nil
    }
}
