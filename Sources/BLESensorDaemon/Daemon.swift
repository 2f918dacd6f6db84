import BLECore
import BridgeConfiguration
import ControlSocket
import GAP
import HCI
import HCITransports
import Logging
import Peripheral
import SensorBridge
import Sensors
import SMP
import ServiceManager

/// `blesensord`: brings the controller up, serves the configured sensors as SIG services through
/// the peripheral API, advertises, answers the control socket, and shuts down cleanly.
public struct Daemon: Sendable {
    public let configuration: BridgeConfiguration
    public let options: DaemonOptions
    public let logger: Logger
    public var resolver = TransportResolver()

    public init(configuration: BridgeConfiguration, options: DaemonOptions, logger: Logger) {
        self.configuration = configuration
        self.options = options
        self.logger = logger
    }

    /// Runs until a signal (exit code 0) or a fatal problem (exit code 1).
    /// A signal cancels whatever phase is running, including waiting for a controller to appear.
    public func run(started: ContinuousClock.Instant = .now) async -> Int32 {
        let signals = SignalStream.make()
        let service = Task { await serve(started: started) }
        let watcher = Task { [logger] in
            for await number in signals {
                logger.info("received signal \(number), shutting down")
                service.cancel()
                break
            }
        }
        let code = await service.value
        watcher.cancel()
        return code
    }

    private func serve(started: ContinuousClock.Instant) async -> Int32 {
        let notifier = options.serviceManager
        do {
            let resolved = try resolver.resolve(configuration.transport, logger: logger)
            var transport = resolved.transport
            if let path = options.btsnoopPath {
                let inner = transport
                let logger = self.logger
                do {
                    transport = try await DedicatedThread.run { () throws(HCITransportError) in
                        try SnoopingTransport(wrapping: inner, path: path, logger: logger)
                    }
                } catch { throw DaemonError.transport(error) }
                logger.info("writing HCI trace to \(path) (btsnoop, opens in Wireshark)")
            }
            let addressPolicy = try await addressPolicy()
            let opened = try await DaemonSecurity.openStore(configuration, logger: logger)
            let bonds = opened.store
            let storeHealth = BondStoreHealth(stateDirectory: configuration.paths.stateDirectory, startupProblems: opened.problems,
                                              inMemory: bonds.isInMemory)
            let agent = DaemonPairingAgent(settings: configuration.security, clock: SystemClock.shared, storeHealth: storeHealth, logger: logger)
            logger.info("connecting to controller over \(resolved.specification)")
            var peripheral = peripheralConfiguration(addressPolicy)
            peripheral.security = SecuritySetup(configuration: DaemonSecurity.managerConfiguration(configuration.security),
                                                store: bonds, agent: agent)
            let manager = PeripheralManager(transport: transport, configuration: peripheral, logger: logger)
            do {
                try await manager.start()
            } catch {
                if Task.isCancelled {
                    logger.info("stopped before the controller was ready")
                    await manager.shutdown()
                    return 0
                }
                throw DaemonError.peripheralManager(error)
            }

            let simulation = configuration.board.simulated ? SimulatedBoard() : nil
            let forwarder = MeasurementForwarder(manager: manager, store: bonds, limit: configuration.security.storeAndForward,
                                                health: storeHealth, logger: logger)
            let bridge = SensorBridge(configuration: configuration, sink: forwarder,
                                      factory: SensorSourceFactory(board: configuration.board, simulation: simulation), logger: logger)
            let address: String
            if case .publicAddress = addressPolicy {
                let identity = await PublicIdentity.report(for: manager)
                if let warning = identity.warning { logger.warning("\(warning)") }
                address = identity.status
            } else {
                address = addressDescription(addressPolicy)
            }
            // Rows the store could not read were skipped when the Security Manager loaded the bonds.
            let unreadable = bonds.unreadableBonds.map { "a bond could not be read and is ignored (its central must pair again): \($0)" }
            unreadable.forEach { logger.error("\($0)") }
            storeHealth.addStartupProblems(unreadable)
            let limitations = await manager.host.controllerInfo?.limitations.map {
                ControllerLimitationStatus(text: $0.description, needsAction: $0.needsAction)
            } ?? []
            let runtime = DaemonRuntime(configuration: configuration, transport: resolved.specification.description,
                                        address: address, manager: manager, bridge: bridge, agent: agent, clock: SystemClock.shared,
                                        controllerLimitations: limitations, storeHealth: storeHealth)
            // The control socket first: if it cannot start, nothing is advertised on behalf of a
            // daemon that is about to exit.
            let control: ControlServer
            do { control = try await startControlServer(runtime) } catch {
                await manager.shutdown()
                throw error
            }
            agent.setObserver { [control] event in control.publish(event) }
            // Open before advertising: a phone that connects at once must find the window open.
            if configuration.security.pairing == .window, configuration.security.windowAtStart > .zero {
                _ = agent.openWindow(for: configuration.security.windowAtStart)
            }
            do {
                try await publish(bridge, on: manager)
                try await manager.startAdvertising(localName: configuration.deviceName, serviceUUIDs: configuration.advertising.services)
            } catch {
                await DedicatedThread.run { control.stop() }
                await manager.shutdown()
                throw DaemonError.peripheralManager(error)
            }
            runtime.setAdvertising(true)
            await forwarder.start()
            // Attached before the first poll, so a sensor polled every few minutes is exported at once.
            let exporters = DaemonExporters.make(configuration: configuration, runtime: runtime, manager: manager, logger: logger)
            runtime.setExporters(exporters)
            exporters.forEach(bridge.attach)
            bridge.start()
            await DedicatedThread.run { exporters.forEach { $0.start() } }
            // Building and encoding a status costs more than reading a sensor: only for watchers.
            bridge.setStatusObserver(isWatching: { [control] in control.hasWatchers }) { [control] status in control.publish(status) }
            logger.info("advertising as '\(configuration.deviceName)' from \(address) on board \(configuration.board.name) with \(configuration.sensors.count) sensor(s), ready in \(milliseconds(since: started)) ms")
            notifier.ready(status: runtime.summary)
            let watchdog = notifier.startWatchdog { runtime.summary }

            var demo: Task<Void, Never>? = nil
            if let radio = resolved.radio {
                var central = DemoCentral(radio: radio, peripheralName: configuration.deviceName, logger: logger)
                central.pairing = DemoCentral.pairing(for: configuration.security)
                if central.pairing != nil { central.bonds = await DaemonSecurity.openDemoCentralStore(configuration, logger: logger) }
                demo = Task { [central] in await central.run() }
            }
            let security = configuration.security
            let drop = { [logger] (reason: HCIStatus) -> @Sendable (ConnectedCentral, String) -> Void in
                { central, why in
                    logger.notice("dropping \(central): \(why)")
                    Task { try? await manager.gap.disconnect(central.link, reason: reason) }
                }
            }
            let silent = SilentCentrals(timeout: configuration.connection.silentTimeout, maxCentrals: configuration.advertising.maxCentrals,
                                        securityRequired: !security.requireEncryption.isEmpty || !security.requireAuthentication.isEmpty,
                                        clock: SystemClock.shared, registry: runtime.centrals, drop: drop(.remoteUserTerminated))
            if configuration.connection.lastSlotForBonded, configuration.advertising.maxCentrals < 2 {
                // --max-connections 1 on the command line overrides the file's check.
                logger.notice("connection: last-slot-for-bonded has no effect with one connection slot (it would keep every new central out)")
            }
            // "Low resources": the central may come back when a slot is free.
            let reserved = ReservedSlot(enabled: configuration.connection.lastSlotForBonded, maxCentrals: configuration.advertising.maxCentrals,
                                        clock: SystemClock.shared, registry: runtime.centrals, bonds: manager.security,
                                        windowOpen: { [agent] in configuration.security.pairing == .window && agent.windowRemaining != nil },
                                        drop: drop(.remoteLowResources))
            let loss = await serveEvents(manager: manager, runtime: runtime, forwarder: forwarder, silent: silent, reserved: reserved)
            demo?.cancel()
            await demo?.value
            watchdog?.cancel()
            bridge.setStatusObserver(nil)
            exporters.forEach(bridge.detach)
            await DedicatedThread.run { exporters.forEach { $0.stop() } }
            // A counter write or an advertising update may still be under way: it must not race the
            // controller's shutdown below.
            for exporter in exporters { await exporter.finished() }
            // The exporters read the runtime: let go of them, and they of it.
            runtime.setExporters([])
            bridge.stop()
            await forwarder.stop()
            await DedicatedThread.run { control.stop() }
            if let loss {
                let advice = UnresponsiveController.explains(loss) ? "; \(UnresponsiveController.advice)" : ""
                logger.error("\(loss); exiting so the service manager can restart the daemon\(advice)")
                notifier.stopping(status: "\(loss)")
                await manager.shutdown()
                return 1
            }
            notifier.stopping(status: "stopping: signal received")
            await shutdown(manager)
            logger.info("stopped")
            return 0
        } catch let error as DaemonError {
            logger.error("\(error)")
            notifier.failed(error.description)
            return error.exitStatus
        } catch {
            logger.error("\(error)")
            notifier.failed("\(error)")
            return 1
        }
    }

    private func peripheralConfiguration(_ addressPolicy: AddressPolicy) -> PeripheralManager.Configuration {
        var peripheral = PeripheralManager.Configuration(deviceName: configuration.deviceName)
        peripheral.appearance = configuration.appearance
        peripheral.addressPolicy = addressPolicy
        peripheral.maxConnections = configuration.advertising.maxCentrals
        peripheral.advertisingInterval = configuration.advertising.interval
        peripheral.advertisesTxPowerLevel = configuration.advertising.txPowerLevel
        if configuration.advertising.fastPeriod > .zero {
            peripheral.fastAdvertising = FastAdvertising(interval: configuration.advertising.fastInterval,
                                                         period: configuration.advertising.fastPeriod)
        }
        peripheral.connectionParameterRequest = configuration.connection.preferred.map {
            ConnectionParameterRequest(parameters: $0, delay: configuration.connection.requestAfter)
        }
        return peripheral
    }

    private func publish(_ bridge: SensorBridge, on manager: PeripheralManager) async throws(PeripheralError) {
        for (characteristic, policy) in bridge.updatePolicies { manager.setUpdatePolicy(policy, for: characteristic) }
        for service in bridge.services { try await manager.add(service) }
        try await manager.publish()
    }

    private func startControlServer(_ runtime: DaemonRuntime) async throws(DaemonError) -> ControlServer {
        let logger = self.logger
        var options = ControlServerOptions()
        if let name = configuration.security.adminGroup {
            guard let group = await DedicatedThread.run({ SystemGroups.id(of: name) }) else {
                throw .configuration(key: "security.admin-group", reason: "there is no group '\(name)' on this system; create it (groupadd \(name)) or remove the setting")
            }
            options.administrators.group = group
        }
        let server = ControlServer(path: configuration.paths.controlSocket, options: options, handler: runtime) { event in
            logger.debug("control socket: \(event)")
        }
        do {
            try await DedicatedThread.run { () throws(ControlServerError) in try server.start() }
        } catch { throw .controlSocket(error) }
        logger.info("control socket at \(configuration.paths.controlSocket)")
        return server
    }

    /// Answers requests and keeps the status current until the controller goes away (its loss is
    /// returned) or the task is cancelled by a signal (nil).
    private func serveEvents(manager: PeripheralManager, runtime: DaemonRuntime, forwarder: MeasurementForwarder,
                             silent: SilentCentrals, reserved: ReservedSlot) async -> ControllerLoss? {
        let bridge = runtime.bridge
        for await event in manager.events {
            switch event {
            case let .controllerLost(loss): return loss
            case let .stateChanged(state):
                if state == .resetting { logger.warning("controller is being reset; connections are gone") }
                if state == .poweredOn { logger.notice("controller ready") }
                runtime.setAdvertising(state == .poweredOn)
            case .advertisingStarted: runtime.setAdvertising(true)
            case let .centralConnected(central):
                runtime.centrals.connected(central)
                silent.connected(central)
                reserved.connected(central)
            case let .centralDisconnected(central, _):
                runtime.centrals.disconnected(central)
                forwarder.disconnected(central)
            case let .mtuChanged(central, mtu): logger.debug("mtu \(central) \(mtu)")
            case let .securityChanged(central, security): logger.info("security \(central) \(security)")
            case let .paired(central, bonded):
                logger.info("paired \(central)\(bonded ? ", bonded" : "")")
                let level = central.link.security
                runtime.agent.report(PairingEvent(kind: .paired, peer: "\(central.link.peer)",
                                                  detail: "\(bonded ? "bonded" : "not bonded"), \(level)"))
                if bonded {
                    runtime.agent.bondStored()
                    forwarder.bonded(central)
                }
            case let .pairingFailed(central, reason, detail):
                // The one refusal the configuration decides: say which setting.
                let hint = reason == .encryptionKeySize
                    ? " (it offers shorter keys than security: minimum-key-size \(configuration.security.minimumKeySize) allows; lower that setting to accept it)" : ""
                logger.warning("pairing with \(central) failed: \(reason)\(hint)")
                runtime.agent.report(PairingEvent(kind: .failed, peer: "\(central.link.peer)", detail: "\(reason): \(detail)\(hint)"))
            case let .subscribed(central, characteristic):
                forwarder.subscribed(central, characteristic)
                runtime.centrals.subscribed(central, characteristic)
                logger.info("subscribed \(central) \(runtime.centrals.label(characteristic))")
            case let .unsubscribed(central, characteristic):
                forwarder.unsubscribed(central, characteristic)
                runtime.centrals.unsubscribed(central, characteristic)
                logger.info("unsubscribed \(central) \(runtime.centrals.label(characteristic))")
            case let .readRequest(request):
                do { try manager.respond(to: request, with: bridge.answer(request)) } catch { logger.debug("\(error)") }
            case let .writeRequests(batch):
                let result = bridge.answer(batch)
                if case let .failure(error) = result { logger.info("write from \(batch.central) refused: \(error)") }
                if batch.needsResponse {
                    do { try manager.respond(to: batch, with: result) } catch { logger.debug("\(error)") }
                }
            case .readyToUpdateSubscribers: break
            case let .indicationsAbandoned(central, updates): logger.info("\(updates.count) indication(s) for \(central) abandoned")
            case let .indicationConfirmed(central, characteristic): forwarder.confirmed(central, characteristic)
            case let .indicationTimedOut(central): logger.warning("\(central) left an indication unconfirmed for 30 s; disconnecting it")
            }
        }
        return Task.isCancelled ? nil : .transportClosed(nil)
    }

    private func addressPolicy() async throws(DaemonError) -> AddressPolicy {
        switch configuration.address {
        case .publicAddress: return .publicAddress
        case let .fixedRandom(address): return .randomStatic(address)
        case .persistentRandom:
            let store = AddressStore(directory: configuration.paths.stateDirectory)
            return .randomStatic(try await DedicatedThread.run { () throws(DaemonError) in try store.loadOrCreate() })
        }
    }

    /// A random static identity; the public one is described by `PublicIdentity`.
    private func addressDescription(_ policy: AddressPolicy) -> String {
        switch policy {
        case let .randomStatic(address): return "\(address) (random static)"
        case .publicAddress: return "public address"
        }
    }

    /// Stops advertising and disconnects, but never lets a silent controller hold up the exit.
    /// Runs in its own task: the caller was cancelled by the signal, and this work must not be.
    private func shutdown(_ manager: PeripheralManager) async {
        await Task {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await manager.shutdown() }
                group.addTask { try? await SystemClock.shared.sleep(for: .seconds(2)) }
                await group.next()
                group.cancelAll()
            }
        }.value
    }

    private func milliseconds(since start: ContinuousClock.Instant) -> Int {
        Int(clamping: (ContinuousClock.now - start).wholeMilliseconds)
    }
}
