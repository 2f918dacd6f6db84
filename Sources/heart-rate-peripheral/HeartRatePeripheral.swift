import ArgumentParser
import BLEPeripheral
import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import Logging
import Synchronization
import VirtualController

/// The peripheral role walked through as in CoreBluetooth's guide: start the manager, build and
/// publish services, advertise, answer requests, and update subscribers while honouring `false`
/// and "ready to update" from `updateValue`.
@main
struct HeartRatePeripheral: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "heart-rate-peripheral",
        abstract: "Example: a Heart Rate peripheral with an echo, a long value and an indicated counter.")

    @Option(help: "Controller transport: tcp:HOST:PORT, hci:N, uart:PATH?baud=N&flow=on|off or virtual.")
    var transport = "virtual"

    @Option(help: "Local name to advertise.")
    var name = "blesensor-hr"

    @Option(help: "Random static address to use (two top bits set, e.g. C0:00:00:00:00:01); a new one each run when omitted.")
    var address: String?

    @Option(help: "Heart Rate Measurement updates per second (up to thousands, to exercise the queue).")
    var rate: Double = 1

    @Option(help: "How late (ms) the update timer may wake; it then sends every update due by then. 0 wakes for each one.")
    var updateLeewayMs: Double = 5

    @Flag(help: "Send Heart Rate Measurements as fast as updateValue accepts them, resuming on \"ready to update subscribers\" (overrides --rate).")
    var stream = false

    @Option(help: "Our ATT MTU (23…517).")
    var mtu = 247

    @Option(help: "Log level: trace, debug, info, notice, warning, error.")
    var logLevel = "info"

    func validate() throws {
        guard rate.isFinite, rate > 0, rate <= 10_000 else { throw ValidationError("--rate must be between 0 and 10000 updates per second") }
        guard updateLeewayMs.isFinite, (0...1000).contains(updateLeewayMs) else { throw ValidationError("--update-leeway-ms must be between 0 and 1000") }
        guard (23...517).contains(mtu) else { throw ValidationError("--mtu must be between 23 and 517") }
        guard Logger.Level(rawValue: logLevel) != nil else { throw ValidationError("--log-level must be trace, debug, info, notice, warning or error") }
        if let address {
            guard let parsed = BluetoothAddress(address), parsed.isValidRandomStatic else {
                throw ValidationError("--address must be a random static address: six hex octets, the first from C0 to FF, not all ones or zeros in the rest (e.g. C0:00:00:00:00:01)")
            }
        }
    }

    func run() async throws {
        let level = Logger.Level(rawValue: logLevel) ?? .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "heart-rate-peripheral")
        let link = try makeTransport(logger: logger)
        var configuration = PeripheralManager.Configuration(deviceName: name)
        configuration.addressPolicy = .randomStatic(address.flatMap(BluetoothAddress.init) ?? .randomStatic())
        configuration.maxConnections = 4
        configuration.mtu = mtu
        let manager = PeripheralManager(transport: link, configuration: configuration, logger: logger)
        // Streaming wants every value delivered (refused when the queue is full); periodic updates
        // only need the newest one when a central falls behind.
        manager.setUpdatePolicy(stream ? .fifo : .latestValue, for: ExampleServices.measurement)

        // 1. Start, and only build services once powered on.
        do { try await manager.start() } catch {
            logger.error("\(error)")
            throw ExitCode(1)
        }
        // 2. Build and publish the services, then advertise.
        do {
            try await manager.add(ExampleServices.heartRate)
            try await manager.add(ExampleServices.example)
            try await manager.publish()
            try await manager.startAdvertising(localName: name, serviceUUIDs: [ExampleServices.heartRateService])
        } catch {
            logger.error("\(error)")
            throw ExitCode(1)
        }
        let mode: ExampleApplication.Mode = stream
            ? .stream : .periodic(.nanoseconds(Int64(1e9 / rate)), leeway: .nanoseconds(Int64(updateLeewayMs * 1e6)))
        let app = ExampleApplication(manager: manager, logger: logger, mode: mode)
        // 3. Serve until SIGTERM or SIGINT, or until the controller is lost; then leave cleanly.
        let stop = DispatchSignalWaiter(signals: [SIGTERM, SIGINT])
        let ending = await withTaskGroup(of: Ending.self) { group in
            group.addTask { .signal(await stop.next()) }
            group.addTask { await app.run(); return .controllerLost }
            let first = await group.next() ?? .controllerLost
            group.cancelAll()
            return first
        }
        if case let .signal(number) = ending { logger.info("received signal \(number), stopping") }
        app.stopTimers()
        await manager.shutdown()
        if case .controllerLost = ending { throw ExitCode(1) }
    }

    private enum Ending: Sendable {
        case signal(Int32)
        case controllerLost
    }

    private func makeTransport(logger: Logger) throws -> any HCITransport {
        let specification: TransportSpecification
        do { specification = try TransportSpecification(parsing: transport) } catch {
            throw ValidationError(error.description)
        }
        if specification == .virtual {
            return VirtualRadio(label: "example").makeController(configuration: .init(address: BluetoothAddress("00:1B:DC:0E:0A:01")!))
        }
        do { return try specification.makeTransport(logger: logger) } catch {
            throw ValidationError(error.description)
        }
    }
}
