import ArgumentParser
import BLECore
import BLESensorDaemon
import Logging

@main
struct BLESensorD: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "blesensord",
        abstract: "Bluetooth LE sensor bridge daemon: advertises and serves a board's sensors to phones and gateways.",
        discussion: """
        Transports: auto (hci0 if present, else demo mode), virtual (demo mode), tcp:HOST:PORT (H4 over TCP, \
        e.g. a Bumble or btvirt virtual controller), hci:N (Linux HCI user channel; stop bluetoothd first), \
        uart:/dev/ttyAMA0?baud=115200&flow=on (H4 over a serial port).
        """)

    @Option(help: "Controller transport: auto, virtual, tcp:HOST:PORT, hci:N or uart:PATH?baud=N&flow=on|off.")
    var transport = "auto"

    @Option(help: "Local name to advertise.")
    var name = "blesensor"

    @Option(name: .customLong("service-uuid"), help: "A service UUID to advertise (repeatable), e.g. 180D or a 128-bit UUID.")
    var serviceUUIDs: [String] = []

    @Option(help: "Maximum number of simultaneously connected centrals.")
    var maxConnections = 1

    @Option(help: "Own address: random (generated once and kept in the state directory), public, or a random static address.")
    var address = "random"

    @Option(help: "Advertising interval in milliseconds (20 … 10240).")
    var advertisingIntervalMs = 100

    @Option(help: "Write every HCI packet to this file in btsnoop format (opens in Wireshark).")
    var btsnoop: String?

    @Option(help: "Directory for persistent state (the random static address).")
    var stateDir: String?

    @Option(help: "Log level: trace, debug, info, notice, warning, error or critical.")
    var logLevel = "info"

    func validate() throws {
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ValidationError("--log-level must be one of trace, debug, info, notice, warning, error, critical")
        }
        guard (1...8).contains(maxConnections) else {
            throw ValidationError("--max-connections must be between 1 and 8")
        }
        guard (20...10_240).contains(advertisingIntervalMs) else {
            throw ValidationError("--advertising-interval-ms must be between 20 and 10240")
        }
        for text in serviceUUIDs where BluetoothUUID(text) == nil {
            throw ValidationError("--service-uuid '\(text)' is not a UUID: use 4 or 8 hex digits (180D) or the 36-character form")
        }
        if case let .failure(error) = DaemonConfiguration.parseAddressMode(address) {
            throw ValidationError(error.description)
        }
        if name.utf8.isEmpty || name.utf8.count > 248 {
            throw ValidationError("--name must be 1 to 248 bytes of UTF-8 (the GAP Device Name limit)")
        }
    }

    func run() async throws {
        let started = ContinuousClock.now
        let level = Logger.Level(rawValue: logLevel) ?? .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "blesensord")
        guard case let .success(addressMode) = DaemonConfiguration.parseAddressMode(address) else { throw ExitCode(64) }
        var configuration = DaemonConfiguration(
            transport: transport, localName: name, serviceUUIDs: serviceUUIDs.compactMap(BluetoothUUID.init),
            maxConnections: maxConnections, addressMode: addressMode,
            advertisingInterval: .milliseconds(advertisingIntervalMs), btsnoopPath: btsnoop)
        if let stateDir { configuration.stateDirectory = stateDir }
        let code = await Daemon(configuration: configuration, logger: logger).run(started: started)
        if code != 0 { throw ExitCode(code) }
    }
}
