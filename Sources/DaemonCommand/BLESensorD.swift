import ArgumentParser
import BLECore
import BLESensorDaemon
import BridgeConfiguration
import Logging
import ServiceManager

/// The daemon's command line. Its entry points are the `blesensord` executable (development:
/// `.build/debug/blesensord`) and the multi-call `blesensor` invoked as `blesensord` (the package's
/// symbolic link); `commandName` keeps help and usage saying `blesensord` whatever argv[0] is.
public struct BLESensorD: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "blesensord",
        abstract: "Bluetooth LE sensor bridge daemon: reads a board's sensors and serves them to phones and gateways as SIG services.",
        discussion: """
        Configuration: --config FILE, else /etc/blesensor/blesensor.yaml when it exists, else the built-in demo \
        configuration (one sensor of each kind) on --board (default: simulated). `blesensor config check FILE` \
        validates a file. The options below override the file.

        Transports: auto (hci0 if present, else demo mode), virtual (demo mode), tcp:HOST:PORT (H4 over TCP, \
        e.g. a Bumble or btvirt virtual controller), hci:N (Linux HCI user channel: the daemon powers the adapter down and takes it from bluetoothd), \
        uart:/dev/ttyAMA0?baud=115200&flow=on (H4 over a serial port).
        """,
        version: ProductVersion.current)

    /// EX_CONFIG (sysexits.h) for a configuration the daemon refuses: the unit's
    /// RestartPreventExitStatus= names it, since restarting cannot fix the file.
    static let configurationRefused: Int32 = 78

    @Option(help: "Configuration file (YAML).")
    var config: String?

    @Option(help: "Board profile when running without a configuration file: simulated, raspberry-pi-4b, ... (see boards/), or auto (from the device tree).")
    var board: String?

    @Option(help: "Controller transport: auto, virtual, tcp:HOST:PORT, hci:N or uart:PATH?baud=N&flow=on|off.")
    var transport: String?

    @Option(help: "Local name to advertise.")
    var name: String?

    @Option(name: .customLong("service-uuid"), help: "A service UUID to advertise (repeatable), e.g. 180D or a 128-bit UUID; replaces the configured list.")
    var serviceUUIDs: [String] = []

    @Option(help: "Maximum number of simultaneously connected centrals (1 … 8).")
    var maxConnections: Int?

    @Option(help: "Own address: random (generated once and kept in the state directory), public, or a random static address.")
    var address: String?

    @Option(help: "Advertising interval in milliseconds (20 … 10240).")
    var advertisingIntervalMs: Int?

    @Option(help: "Write every HCI packet to this new file in btsnoop format (opens in Wireshark). It holds every pairing's keys: it is created mode 0600 and an existing file is never overwritten.")
    var btsnoop: String?

    @Option(help: "Directory for persistent state (the random static address).")
    var stateDir: String?

    @Option(help: "Path of the control socket `blesensor status` connects to.")
    var controlSocket: String?

    @Option(help: "Log level: trace, debug, info, notice, warning, error or critical.")
    var logLevel = "info"

    /// The unit's root pre-start step: clear a soft rfkill block on the configured adapter, then exit.
    @Flag(name: .customLong("unblock-rfkill"), help: .hidden)
    var unblockRfkill = false

    /// The package's systemd generator: write the device drop-in for the configuration under DIR.
    @Option(name: .customLong("write-device-policy"), help: .hidden)
    var writeDevicePolicy: String?

    public init() {}

    public func validate() throws {
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ValidationError("--log-level must be one of trace, debug, info, notice, warning, error, critical")
        }
        let centrals = AdvertisingSettings.maxCentralsRange
        if let maxConnections, !centrals.contains(maxConnections) {
            throw ValidationError("--max-connections must be between \(centrals.lowerBound) and \(centrals.upperBound)")
        }
        let interval = AdvertisingSettings.intervalRange
        if let advertisingIntervalMs, !interval.contains(.milliseconds(advertisingIntervalMs)) {
            throw ValidationError("--advertising-interval-ms must be between \(interval.lowerBound.wholeMilliseconds) and \(interval.upperBound.wholeMilliseconds)")
        }
        for text in serviceUUIDs where BluetoothUUID(text) == nil {
            throw ValidationError("--service-uuid '\(text)' is not a UUID: use 4 or 8 hex digits (180D) or the 36-character form")
        }
        if let address, case let .failure(error) = DaemonConfiguration.parseAddressMode(address) {
            throw ValidationError(error.description)
        }
        let nameBytes = BridgeConfiguration.deviceNameBytes
        if let name, !nameBytes.contains(name.utf8.count) {
            throw ValidationError("--name must be \(nameBytes.lowerBound) to \(nameBytes.upperBound) bytes of UTF-8 (the GAP Device Name limit)")
        }
        if config != nil, board != nil {
            throw ValidationError("--board applies without a configuration file; set `board:` in \(config ?? "the file") instead")
        }
    }

    public func run() async throws {
        let started = ContinuousClock.now
        let environment = ProcessEnvironment.current
        let level = Logger.Level(rawValue: logLevel) ?? .info
        LoggingSystem.bootstrap { label in
            var handler = JournalFriendlyLogHandler.standardError(label: label, environment: environment)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "blesensord")
        let source = config ?? "the built-in configuration"
        if let directory = writeDevicePolicy {
            // Early at boot: no log lines about choosing a board, only the drop-in (or why not).
            var quiet = Logger(label: "blesensord")
            quiet.logLevel = .error
            let loaded = DaemonConfiguration.load(file: config, board: board, environment: environment,
                                                  executablePath: CommandLine.arguments.first ?? "blesensord", logger: quiet)
            let code = DevicePolicy.generate(loaded, source: source, directory: directory)
            if code != 0 { throw ExitCode(code) }
            return
        }
        let loaded = DaemonConfiguration.load(file: config, board: board, environment: environment,
                                              executablePath: CommandLine.arguments.first ?? "blesensord", logger: logger)
        guard case var .success(configuration) = loaded else {
            if unblockRfkill {
                // The daemon started next reports the problems; saying them twice helps no one.
                logger.notice("not clearing rfkill: the configuration has problems, which blesensord reports")
                return
            }
            if case let .failure(problems) = loaded {
                logger.error("refusing to start: \(problems.problems.count) problem(s) in \(problems.fileName)")
                for problem in problems.problems { logger.error("\(problem)") }
            }
            throw ExitCode(Self.configurationRefused)
        }
        // The generator reads the file alone: compare with the file, not the command-line overrides.
        let asConfigured = configuration
        applyOverrides(to: &configuration)
        if unblockRfkill {
            let outcome = await RfkillUnblock.run(transport: configuration.transport)
            switch outcome {
            case .unblocked: logger.notice("\(outcome)")
            case .hardBlocked, .failed: logger.warning("\(outcome)")
            default: logger.info("\(outcome)")
            }
            if outcome.exitCode != 0 { throw ExitCode(outcome.exitCode) }
            return
        }
        // Only under systemd (INVOCATION_ID): a hand-started daemon is not confined by the drop-in.
        if environment["INVOCATION_ID"] != nil, let stale = await DevicePolicy.staleWarning(for: asConfigured, source: source) {
            logger.warning("\(stale)")
        }
        let options = DaemonOptions(btsnoopPath: btsnoop, serviceManager: ServiceNotifications(environment: environment, logger: logger))
        let code = await Daemon(configuration: configuration, options: options, logger: logger).run(started: started)
        if code != 0 { throw ExitCode(code) }
    }

    private func applyOverrides(to configuration: inout BridgeConfiguration) {
        if let transport { configuration.transport = transport }
        if let name { configuration.deviceName = name }
        if !serviceUUIDs.isEmpty { configuration.advertising.services = serviceUUIDs.compactMap(BluetoothUUID.init) }
        if let maxConnections { configuration.advertising.maxCentrals = maxConnections }
        if let advertisingIntervalMs { configuration.advertising.interval = .milliseconds(advertisingIntervalMs) }
        if let address, case let .success(mode) = DaemonConfiguration.parseAddressMode(address) { configuration.address = mode }
        if let stateDir { configuration.paths.stateDirectory = stateDir }
        if let controlSocket { configuration.paths.controlSocket = controlSocket }
    }
}
