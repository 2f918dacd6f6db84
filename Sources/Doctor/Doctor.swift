import BLECore
import BridgeConfiguration
import ControlSocket
import HCITransports

/// What the user asked for: `blesensor doctor [--config FILE] [--socket PATH]`.
public struct DoctorOptions: Sendable, Equatable {
    /// The configuration to check, a path on the real filesystem; nil: the installed one
    /// (`/etc/blesensor/blesensor.yaml` inside the root).
    public var configPath: String?
    /// The daemon's control socket; nil: the configuration's.
    public var socketPath: String?
    /// How long one sensor read may take before it is reported as not answering.
    public var sensorTimeout: Duration

    public init(configPath: String? = nil, socketPath: String? = nil, sensorTimeout: Duration = .seconds(5)) {
        self.configPath = configPath
        self.socketPath = socketPath
        self.sensorTimeout = sensorTimeout
    }
}

/// Everything the doctor looks at, injectable so tests can fake a whole machine: the filesystem
/// root, who runs it, the daemon, systemd, the sensor drivers and GPIO line lookup.
public struct DoctorEnvironment: Sendable {
    public var root: SystemRoot
    public var invoker: Invoker
    /// The process environment (BLESENSOR_BOARDS_DIR, XDG_RUNTIME_DIR for a daemon run by hand).
    public var variables: [String: String]
    public var boardsDirectories: [String]
    public var daemon: any DaemonProbe
    /// Nil where there is no systemctl.
    public var services: (any ServiceManagerProbe)?
    /// Nil where sensors cannot be read directly: the drivers open the real devices, so under a
    /// test root they would read the wrong machine.
    public var sensors: (any SensorReader)?
    public var gpio: any GPIOLineFinder
    /// The HCI socket calls that tell whether an adapter is up.
    public var hciCalls: any HCISystemCalls
    /// Bounds the sensor reads.
    public var clock: any HostClock

    public init(root: SystemRoot, invoker: Invoker, variables: [String: String], boardsDirectories: [String],
                daemon: any DaemonProbe, services: (any ServiceManagerProbe)?, sensors: (any SensorReader)?,
                gpio: any GPIOLineFinder, hciCalls: any HCISystemCalls, clock: any HostClock = SystemClock.shared) {
        self.root = root
        self.invoker = invoker
        self.variables = variables
        self.boardsDirectories = boardsDirectories
        self.daemon = daemon
        self.services = services
        self.sensors = sensors
        self.gpio = gpio
        self.hciCalls = hciCalls
        self.clock = clock
    }

    /// This machine seen through `root` (`/` unless testing), with the real probes.
    public static func system(root: SystemRoot, variables: [String: String], executablePath: String) -> DoctorEnvironment {
        DoctorEnvironment(
            root: root, invoker: .current(), variables: variables,
            boardsDirectories: ConfigurationLoader.defaultBoardsDirectories(environment: variables, executablePath: executablePath),
            daemon: ControlSocketProbe(), services: SystemctlProbe.find(in: root), sensors: root == .real ? DriverSensorReader() : nil,
            gpio: LibgpiodLineFinder(root: root), hciCalls: LinuxHCISystemCalls())
    }
}

/// `blesensor doctor`: checks the kernel interfaces the configuration needs, the accounts, the
/// configuration itself, the daemon and each sensor, one line each with a fix for each failure.
public struct Doctor: Sendable {
    public let options: DoctorOptions
    public let environment: DoctorEnvironment

    public init(options: DoctorOptions, environment: DoctorEnvironment) {
        self.options = options
        self.environment = environment
    }

    /// Runs every check on a thread of its own (they block on files, sockets, child processes and
    /// sensor reads) and returns the report.
    public func report() async -> DoctorReport {
        let doctor = self
        return await DedicatedThread.run(name: "blesensor-doctor") { doctor.examine() }
    }

    /// Every check, in order; blocking.
    public func examine() -> DoctorReport {
        var examination = Examination(options: options, environment: environment)
        return DoctorReport(checks: examination.run())
    }
}

/// The names the package installs.
enum Installed {
    static let user = "blesensor"
    /// Members may use the control socket.
    static let socketGroup = "blesensor"
    static let unit = "blesensord"
    static let serviceSocket = ControlProtocol.defaultSocketPath
    /// What systemd gives the service (StateDirectory=, RuntimeDirectory=), for the path defaults.
    static let serviceEnvironment = ["STATE_DIRECTORY": "/var/lib/blesensor", "RUNTIME_DIRECTORY": "/run/blesensor"]
    static let restart = "sudo systemctl restart blesensord"
    static let log = "journalctl -u blesensord"

    static func addToGroup(_ user: String, _ group: String) -> String {
        "sudo adduser \(user) \(group), then \(restart)"
    }
}
