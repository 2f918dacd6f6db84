import ArgumentParser
import Foundation
import BLECore
import Bonding
import BridgeConfiguration
import Central
import ControlSocket
import HCI
import HCITransports
import Logging
import SMP
import SQLiteBondStore
import ServiceManager

/// What the central commands share: the controller, the bond store, finding and connecting to the
/// peripheral, securing the link, and turning every failure into one `error: …` line and exit 1.
struct CentralSession {
    let command: String
    let transport: TransportOptions

    /// Runs `body` with a started manager; shuts it down afterwards, whatever happens.
    /// `interruptIsNormalEnd`: Ctrl-C is how the command is meant to stop (scan, subscribe): exit 0,
    /// otherwise 130 as shells expect from an interrupted command.
    func withManager(security: SecuritySetup? = nil, deviceName: String = "blesensor", interruptIsNormalEnd: Bool = false,
                     _ body: (CentralManager) async throws(CLIFailure) -> Void) async throws {
        Self.bootstrapLogging(verbose: transport.verbose)
        var logger = Logger(label: "blesensor.\(command)")
        logger.logLevel = transport.verbose ? .debug : .error
        do throws(CLIFailure) {
            let specification = try Self.specification(transport.transport)
            try Self.refuseIfTheDaemonOwns(specification, socket: transport.socket)
            let hciTransport: any HCITransport
            do { hciTransport = try specification.makeTransport(logger: logger) } catch { throw CLIFailure("\(error)") }
            var configuration = CentralManager.Configuration()
            configuration.deviceName = deviceName
            configuration.security = security
            let manager = CentralManager(transport: hciTransport, configuration: configuration, logger: logger)
            let timeout = Duration.milliseconds(Int64(transport.controllerTimeout * 1000))
            if let error = await Self.start(manager, within: timeout) {
                await manager.shutdown()
                if case let .controller(.transport(.adapterBusy(device, _))) = error, Self.daemonAnswers(socket: transport.socket) {
                    throw CLIFailure(Self.daemonOwns(device))
                }
                throw CLIFailure("\(error)")
            } else if await manager.currentState != .poweredOn {
                await manager.shutdown()
                throw CLIFailure("no controller answered at \(specification) within \(transport.controllerTimeout) s: is it running, and is this the right address? (--controller-timeout to wait longer)")
            }
            // Ctrl-C leaves cleanly: links are disconnected and the controller let go, which ends
            // whatever the command was waiting for.
            // Set once, from the signal watcher; read after the command's body.
            let interrupted = Locked(false)
            let watcher = Task { [command] in
                guard await InterruptSignal.wait() else { return }
                interrupted.value = true
                CLIEnvironment.printError("blesensor \(command): interrupted; disconnecting")
                await manager.leave()
            }
            defer { watcher.cancel() }
            do throws(CLIFailure) {
                try await body(manager)
            } catch {
                await manager.shutdown()
                if interrupted.value { throw CLIFailure.interrupted(normalEnd: interruptIsNormalEnd) }
                throw error
            }
            await manager.shutdown()
            if interrupted.value { throw CLIFailure.interrupted(normalEnd: interruptIsNormalEnd) }
        } catch {
            if let exitCode = error.exitCode { throw ExitCode(exitCode) }
            CLIEnvironment.printError("error: \(error.message)")
            throw ExitCode(1)
        }
    }

    /// Finds the peripheral, connects, secures the link as asked and runs `body`; disconnects afterwards.
    func withPeripheral(_ addressText: String, options: ConnectionOptions, interruptIsNormalEnd: Bool = false,
                        _ body: (RemotePeripheral, CentralManager) async throws(CLIFailure) -> Void) async throws {
        guard let address = BluetoothAddress(addressText) else {
            CLIEnvironment.printError("error: '\(addressText)' is not a Bluetooth address (XX:XX:XX:XX:XX:XX)")
            throw ExitCode(64)
        }
        let security = try options.needsSecurity ? securitySetup(options) : nil
        try await withManager(security: security, interruptIsNormalEnd: interruptIsNormalEnd) { manager throws(CLIFailure) in
            let timeout = Duration.milliseconds(Int64(options.connectTimeout * 1000))
            let target: DeviceAddress
            switch options.addressType {
            case .public?: target = DeviceAddress(address, type: .publicDevice)
            case .random?: target = DeviceAddress(address, type: .randomDevice)
            case nil:
                do { target = try await manager.find(address, timeout: timeout).peer } catch { throw CLIFailure("\(error)") }
            }
            status("connecting to \(target)")
            let peripheral: RemotePeripheral
            do { peripheral = try await manager.connect(to: target, timeout: timeout) } catch { throw CLIFailure("\(error)") }
            do throws(CLIFailure) {
                try await secure(peripheral, options)
                do { _ = try await peripheral.exchangeMTU() } catch {
                    // A peripheral that refuses the exchange still works at the default MTU of 23.
                    status("MTU exchange failed (\(error)); going on with ATT_MTU \(peripheral.mtu)")
                }
                try await body(peripheral, manager)
            } catch {
                await peripheral.disconnect()
                throw error
            }
            await peripheral.disconnect()
        }
    }

    /// Starts the manager, giving up after `timeout`: a TCP or UART transport keeps retrying a
    /// controller that is not there, which suits the daemon but would leave a command hanging.
    /// Returns the start's error, or nil (started, or given up: then the state is not powered on).
    private static func start(_ manager: CentralManager, within timeout: Duration) async -> CentralError? {
        await withTaskGroup(of: CentralError??.self) { group in
            group.addTask {
                do throws(CentralError) {
                    try await manager.start()
                    return .some(nil)
                } catch {
                    return .some(error)
                }
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            guard let outcome = first else {
                // Closing the transport abandons the open under way; the start then ends.
                await manager.shutdown()
                _ = await group.next()
                return nil
            }
            return outcome
        }
    }

    private func secure(_ peripheral: RemotePeripheral, _ options: ConnectionOptions) async throws(CLIFailure) {
        if options.encrypt {
            do {
                let security = try await peripheral.encrypt()
                status("re-encrypted with the stored bond (\(security))")
            } catch { throw CLIFailure("\(error)") }
        } else if options.pair {
            do {
                if peripheral.isBonded {
                    let security = try await peripheral.encrypt()
                    status("re-encrypted with the stored bond (\(security))")
                } else {
                    status("pairing")
                    let result = try await peripheral.pair()
                    status("paired (\(result.method), \(result.secureConnections ? "LE Secure Connections" : "legacy"), \(result.keySize)-octet key\(result.bonding ? ", bonded" : ""))")
                }
            } catch { throw CLIFailure("\(error)") }
        }
    }

    private func securitySetup(_ options: ConnectionOptions) throws -> SecuritySetup {
        let directory = options.stateDir
            ?? PathSettings.defaults(environment: ProcessEnvironment.current, userID: ProcessEnvironment.userID).stateDirectory
        let store: SQLiteBondStore
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            store = try SQLiteBondStore(path: PathSettings.bondsDatabase(in: directory))
        } catch {
            CLIEnvironment.printError("error: cannot open the bond store in \(directory): \(error) (choose another with --state-dir)")
            throw ExitCode(1)
        }
        var configuration = SecurityManager.Configuration()
        configuration.policy.ioCapability = options.ioCapability.capability
        configuration.policy.secureConnections = !options.legacy
        configuration.policy.minimumKeySize = 7
        return SecuritySetup(configuration: configuration, store: store,
                             agent: TerminalPairingAgent(passkey: options.passkey, acceptComparison: options.yes))
    }

    func status(_ line: String) {
        CLIEnvironment.printError("blesensor \(command): \(line)")
    }

    // MARK: The controller

    private static func specification(_ text: String) throws(CLIFailure) -> TransportSpecification {
        if text == "auto" {
            guard ProcessEnvironment.fileExists("/sys/class/bluetooth/hci0") else {
                throw CLIFailure("no Bluetooth adapter here (no /sys/class/bluetooth/hci0): give --transport hci:N, uart:/dev/ttyX or tcp:HOST:PORT")
            }
            return .hciUserChannel(index: 0)
        }
        let specification: TransportSpecification
        do { specification = try TransportSpecification(parsing: text) } catch { throw CLIFailure("\(error)") }
        if specification == .virtual {
            throw CLIFailure("--transport virtual exists only inside blesensord's demo mode, which runs its own virtual central; give hci:N, uart:… or tcp:HOST:PORT")
        }
        return specification
    }

    /// A controller serves one host: when the daemon says it uses this one, say so before trying.
    private static func refuseIfTheDaemonOwns(_ specification: TransportSpecification, socket: String?) throws(CLIFailure) {
        guard let client = try? ControlClient.connect(path: CLIEnvironment.controlSocketPath(socket), replyTimeout: .seconds(2)) else { return }
        defer { client.close() }
        guard let status = try? client.status(), status.transport == specification.description else { return }
        throw CLIFailure(daemonOwns(specification.description))
    }

    private static func daemonAnswers(socket: String?) -> Bool {
        guard let client = try? ControlClient.connect(path: CLIEnvironment.controlSocketPath(socket), replyTimeout: .seconds(2)) else { return false }
        client.close()
        return true
    }

    private static func daemonOwns(_ device: String) -> String {
        "\(device) is in use by blesensord (the daemon owns the adapter): pick another controller with --transport, or stop the daemon first (sudo systemctl stop blesensord)"
    }

    private static let loggingBootstrap: Void = {
        LoggingSystem.bootstrap { label in JournalFriendlyLogHandler.standardError(label: label, environment: ProcessEnvironment.current) }
    }()

    static func bootstrapLogging(verbose: Bool) { _ = loggingBootstrap }
}

/// A failure of a central command, said on one line (or, for an interrupt, only an exit status).
struct CLIFailure: Error {
    let message: String
    var exitCode: Int32? = nil
    init(_ message: String) { self.message = message }

    static func interrupted(normalEnd: Bool) -> CLIFailure {
        var failure = CLIFailure("interrupted")
        failure.exitCode = normalEnd ? 0 : 130
        return failure
    }
}
