import ATT
import BLECore
import GAP
import GATT
import GATTNotify
import GATTServer
import HCI
import L2CAP
import Logging
import Synchronization

/// The peripheral role, shaped like CoreBluetooth's `CBPeripheralManager`: add services, publish,
/// advertise, answer each read and write batch exactly once, and update subscribers through a
/// backpressure-aware queue (`updateValue` returns `false` when full; `.readyToUpdateSubscribers`
/// follows).
///
/// Calling context: an actor for configuration and life cycle; `respond`, `updateValue` and
/// `statistics` are `nonisolated` and synchronous, callable from any thread.
public actor PeripheralManager {
    public struct Configuration: Sendable {
        /// GAP Device Name (the full name; advertising may carry a shortened one).
        public var deviceName: String
        public var appearance: UInt16 = 0
        public var addressPolicy: AddressPolicy = .publicAddress
        public var maxConnections = 1
        public var advertisingInterval: Duration = .milliseconds(100)
        /// Our ATT MTU, 23…517.
        public var mtu = 247
        public var queueLimits: QueueLimits = .standard
        /// How long the application has to answer a read or write before the central gets Unlikely Error.
        public var requestTimeout: Duration = .seconds(10)
        public var indicationTimeout: Duration = .seconds(30)

        public init(deviceName: String) { self.deviceName = deviceName }
    }

    /// What exists once services are published; read without the actor on the hot path.
    /// A class, so taking it out of the mutex is one retain rather than one per database field.
    final class Published: Sendable {
        let database: AttributeDatabase
        let server: GATTServer
        let engine: NotificationEngine

        init(database: AttributeDatabase, server: GATTServer, engine: NotificationEngine) {
            self.database = database
            self.server = server
            self.engine = engine
        }
    }

    public nonisolated let events: AsyncStream<PeripheralEvent>
    public nonisolated let configuration: Configuration
    public nonisolated let host: HCIHost
    public nonisolated let gap: GAPPeripheral
    nonisolated let channels: L2CAPFixedChannels
    nonisolated let broker: RequestBroker
    nonisolated let published = Mutex<Published?>(nil)
    private nonisolated let eventSink: AsyncStream<PeripheralEvent>.Continuation
    private nonisolated let logger: Logger
    private var builder: AttributeDatabaseBuilder?
    private var state = PeripheralState.unknown
    private var gapTask: Task<Void, Never>? = nil

    public init(transport: any HCITransport, configuration: Configuration, logger: Logger = Logger(label: "blesensor.peripheral")) {
        self.configuration = configuration
        self.logger = logger
        let (events, sink) = AsyncStream.makeStream(of: PeripheralEvent.self)
        self.events = events
        self.eventSink = sink
        host = HCIHost(transport: transport, logger: logger)
        gap = GAPPeripheral(host: host, configuration: .init(
            addressPolicy: configuration.addressPolicy, maxConnections: configuration.maxConnections,
            advertisingInterval: configuration.advertisingInterval), logger: logger)
        channels = L2CAPFixedChannels(acl: host.acl, logger: logger)
        let gap = gap
        let watchdog = IndicationWatchdog(timeout: configuration.indicationTimeout) { [logger] connection in
            logger.error("connection 0x\(String(connection, radix: 16)): indication not confirmed within the ATT transaction timeout; disconnecting")
            Task { try? await gap.disconnect(connection, reason: .remoteUserTerminated) }
        }
        broker = RequestBroker(requestTimeout: configuration.requestTimeout, logger: logger,
                               indicationWatchdog: watchdog) { event in sink.yield(event) }
        builder = try? AttributeDatabaseBuilder(builtInServices: BuiltInServices(deviceName: configuration.deviceName,
                                                                                 appearance: configuration.appearance))
    }

    // MARK: Life cycle

    /// Brings the controller up; the state becomes `.poweredOn` (or says why not).
    public func start() async throws(PeripheralError) {
        do {
            _ = try await host.start()
        } catch {
            let failed: PeripheralState
            switch error {
            case let .transport(.permissionDenied(device, hint)): failed = .unauthorized("\(device): \(hint)")
            case let .unsupportedController(reason): failed = .unsupported(reason)
            default: failed = .poweredOff
            }
            setState(failed)
            throw .controller(error)
        }
        let channels = channels
        await gap.setDataHandler { connection, pdu in channels.receive(pdu, on: connection) }
        await gap.setConnectionObserver { [weak self] change in self?.linkChanged(change) }
        do { try await gap.start() } catch { throw .advertising(error) }
        gapTask = Task { [weak self, gap] in
            for await event in gap.events {
                guard let self else { return }
                await self.handle(event)
            }
        }
        setState(.poweredOn)
    }

    public func shutdown() async {
        await gap.shutdown()
        await host.shutdown()
        gapTask?.cancel()
    }

    public var currentState: PeripheralState { state }

    private func setState(_ new: PeripheralState) {
        guard new != state else { return }
        state = new
        eventSink.yield(.stateChanged(new))
    }

    // MARK: Services

    /// Adds a service; it is checked at once and the reason is thrown if it is invalid
    /// (duplicate UUID, contradictory properties and permissions, database full…).
    /// After `publish()` the new database is served at once and connected centrals that enabled
    /// Service Changed indications are told which handles changed.
    public func add(_ service: GATTService) throws(PeripheralError) {
        guard var builder else { throw .database(.deviceNameTooLong(configuration.deviceName.utf8.count)) }
        do { try builder.add(service) } catch { throw .database(error) }
        try republish(builder)
        self.builder = builder
    }

    /// Removes a service added earlier (its characteristics' subscriptions and routes go with it).
    /// After `publish()` the change is served at once and announced with Service Changed, as for `add`.
    /// Throws when no such service was added, when it is the built-in GAP or GATT service, or when
    /// another service still includes it.
    public func remove(serviceUUID: BluetoothUUID) throws(PeripheralError) {
        guard let builder else { throw .database(.deviceNameTooLong(configuration.deviceName.utf8.count)) }
        if serviceUUID == GATTUUID.genericAccessService || serviceUUID == GATTUUID.genericAttributeService {
            throw .builtInServiceNotRemovable(serviceUUID)
        }
        guard builder.services.contains(where: { $0.uuid == serviceUUID }) else { throw .unknownService(serviceUUID) }
        var rebuilt: AttributeDatabaseBuilder
        do {
            rebuilt = try AttributeDatabaseBuilder(builtInServices: builder.builtInServices)
            // The services as the builder resolved them carry their characteristic ids, so every
            // remaining characteristic keeps its id (and with it its subscriptions).
            for service in builder.services where service.uuid != serviceUUID
                && service.uuid != GATTUUID.genericAccessService && service.uuid != GATTUUID.genericAttributeService {
                try rebuilt.add(service)
            }
        } catch {
            throw .database(error)
        }
        try republish(rebuilt)
        self.builder = rebuilt
    }

    /// Serves the database `builder` builds, if services are published already: the server swaps
    /// databases, routes follow the new handles, and Service Changed goes to the centrals that
    /// enabled its indications. Nothing changes when the build fails.
    private func republish(_ builder: AttributeDatabaseBuilder) throws(PeripheralError) {
        guard let current = published.withLock({ $0 }) else { return }
        let database: AttributeDatabase
        do { database = try builder.build() } catch { throw .database(error) }
        let range = ServiceChangedRange.affected(from: current.database, to: database)
        current.server.replaceDatabase(database)
        let removed = Set(current.database.characteristics.map(\.id)).subtracting(database.characteristics.map(\.id))
        broker.subscribers.republish(Dictionary(uniqueKeysWithValues: database.characteristics.map { ($0.id, $0.valueHandle) }),
                                     removed: removed)
        let next = Published(database: database, server: current.server, engine: current.engine)
        published.withLock { $0 = next }
        logger.info("database changed: \(builder.services.count) service(s) with GAP and GATT, \(database.lastHandle) attributes")
        if let range { announceServiceChanged(range, in: next) }
    }

    /// Indicates the changed range on Service Changed to every connected central whose CCCD enables
    /// indications (Core Vol 3 Part G 7.1); others are not told, as the specification requires.
    private func announceServiceChanged(_ range: ClosedRange<UInt16>, in published: Published) {
        guard let handle = published.database.valueHandle(for: .serviceChanged) else {
            logger.warning("database changed but it has no Service Changed characteristic; centrals must rediscover on their own")
            return
        }
        let centrals = published.server.subscribers(of: .serviceChanged)
            .filter { $0.value.contains(.indications) }.keys.sorted()
        guard !centrals.isEmpty else { return }
        let value = ServiceChangedRange.value(for: range)
        logger.info("Service Changed 0x\(String(range.lowerBound, radix: 16))-0x\(String(range.upperBound, radix: 16)) indicated to \(centrals.count) central(s)")
        let engine = published.engine, watchdog = broker.indicationWatchdog
        if engine.update(value, characteristic: handle, policy: .indication, to: centrals) {
            centrals.forEach(watchdog.queued(on:))
            return
        }
        // An indication is never dropped: a central whose queue is full gets it once there is room.
        for central in centrals {
            Task {
                // Only cancellation ends the wait early, and nothing cancels this task.
                guard (try? await engine.updateWaitingForRoom(value, characteristic: handle, policy: .indication, to: [central])) != nil else { return }
                watchdog.queued(on: central)
            }
        }
    }

    /// Freezes the database and starts serving it.
    public func publish() throws(PeripheralError) {
        guard published.withLock({ $0 == nil }) else { throw .alreadyPublished }
        guard let builder else { throw .database(.deviceNameTooLong(configuration.deviceName.utf8.count)) }
        let database: AttributeDatabase
        do { database = try builder.build() } catch { throw .database(error) }
        let channels = channels
        let acl = host.acl
        var serverConfiguration = GATTServer.Configuration()
        serverConfiguration.mtu = configuration.mtu
        let server = GATTServer(database: database, configuration: serverConfiguration, delegate: broker, logger: logger) { connection, pdu in
            do { try channels.send(pdu, channel: L2CAPChannelID.attribute, on: connection) } catch {
                // The link is going away (unknown connection) or its queue is hopelessly full.
                Logger(label: "blesensor.peripheral").warning("ATT PDU to 0x\(String(connection, radix: 16)) not sent: \(error)")
            }
        }
        let sink = eventSink
        let engine = NotificationEngine(sink: ACLNotificationSink(flowController: acl), defaultLimits: configuration.queueLimits) { event in
            if case .readyToUpdateSubscribers = event { sink.yield(.readyToUpdateSubscribers) }
        }
        acl.setQueueDrainedHandler { [weak engine] _ in engine?.pump() }
        broker.attach(engine) { server.supportsMultipleHandleValueNotifications($0) }
        channels.setHandler(for: L2CAPChannelID.attribute) { connection, payload in server.receive(payload, on: connection) }
        broker.subscribers.publish(Dictionary(uniqueKeysWithValues: database.characteristics.map { ($0.id, $0.valueHandle) }))
        published.withLock { $0 = Published(database: database, server: server, engine: engine) }
        logger.info("published \(builder.services.count) service(s), \(database.lastHandle) attributes")
    }

    public var database: AttributeDatabase? { published.withLock { $0?.database } }

    // MARK: Advertising

    @discardableResult
    public func startAdvertising(localName: String? = nil, serviceUUIDs: [BluetoothUUID] = []) async throws(PeripheralError) -> AdvertisingPlan {
        guard state == .poweredOn else { throw .notPoweredOn(state) }
        guard published.withLock({ $0 != nil }) else { throw .notPublished }
        do {
            let plan = try await gap.startAdvertising(AdvertisingContent(localName: localName ?? configuration.deviceName, serviceUUIDs: serviceUUIDs))
            eventSink.yield(.advertisingStarted(plan))
            return plan
        } catch {
            throw .advertising(error)
        }
    }

    public func stopAdvertising() async throws(PeripheralError) {
        do { try await gap.stopAdvertising() } catch { throw .advertising(error) }
    }

    // MARK: Answers

    /// Answers a read request exactly once; a second answer is reported, never applied.
    public nonisolated func respond(to request: ReadRequest, with result: Result<[UInt8], ATTErrorCode>) throws(RespondError) {
        try broker.respond(to: request.id, read: result)
    }

    /// Answers a write batch exactly once, as a whole.
    public nonisolated func respond(to batch: WriteBatch, with result: Result<Void, ATTErrorCode>) throws(RespondError) {
        guard batch.needsResponse else { return }
        try broker.respond(to: batch.id, write: result)
    }

    // MARK: Updates

    /// How queued values of a notifying characteristic combine (default: only the latest matters).
    public nonisolated func setUpdatePolicy(_ policy: UpdatePolicy, for characteristic: CharacteristicID) {
        broker.subscribers.setPolicy(policy, for: characteristic)
    }

    /// Sends `value` to the subscribed centrals (all of them, or those listed). Returns `false` when
    /// a transmit queue is full; `.readyToUpdateSubscribers` follows when there is room. Values
    /// longer than MTU−3 are truncated in the notification, as CoreBluetooth does.
    @discardableResult
    public nonisolated func updateValue(_ value: [UInt8], for characteristic: CharacteristicID, onSubscribedCentrals centrals: [Central]? = nil) -> Bool {
        guard let published = published.withLock({ $0 }), let route = route(of: characteristic, among: centrals) else { return false }
        var admitted = true
        if !route.indicate.isEmpty {
            admitted = published.engine.update(value, characteristic: route.valueHandle, policy: .indication, to: route.indicate)
            if admitted { route.indicate.forEach(broker.indicationWatchdog.queued(on:)) }
        }
        if admitted, !route.notify.isEmpty {
            admitted = published.engine.update(value, characteristic: route.valueHandle, policy: route.policy, to: route.notify)
        }
        return admitted
    }

    /// `updateValue` that waits for room instead of returning `false`.
    public nonisolated func updateValueWaitingForRoom(_ value: [UInt8], for characteristic: CharacteristicID, onSubscribedCentrals centrals: [Central]? = nil) async throws(CancellationError) {
        guard let published = published.withLock({ $0 }), let route = route(of: characteristic, among: centrals) else { return }
        if !route.indicate.isEmpty {
            try await published.engine.updateWaitingForRoom(value, characteristic: route.valueHandle, policy: .indication, to: route.indicate)
            route.indicate.forEach(broker.indicationWatchdog.queued(on:))
        }
        if !route.notify.isEmpty {
            try await published.engine.updateWaitingForRoom(value, characteristic: route.valueHandle, policy: route.policy, to: route.notify)
        }
    }

    /// Queue counters per connection and characteristic.
    public nonisolated func statistics() -> NotificationStatistics? {
        published.withLock { $0 }?.engine.statistics()
    }

    /// The characteristic's route, narrowed to `centrals` when given; `nil` for an unknown characteristic.
    private nonisolated func route(of characteristic: CharacteristicID, among centrals: [Central]?) -> SubscriberTable.Targets? {
        guard var route = broker.subscribers.targets(of: characteristic), route.valueHandle != 0 else { return nil }
        if let centrals {
            let chosen = Set(centrals.map(\.handle))
            route.notify = route.notify.filter(chosen.contains)
            route.indicate = route.indicate.filter(chosen.contains)
        }
        return route
    }

    // MARK: Link events

    private func handle(_ event: GAPEvent) {
        switch event {
        case let .encryptionChanged(connection, status) where status.isSuccess:
            broker.setSecurity(LinkSecurity(encrypted: connection.encrypted, authenticated: false,
                                            keySize: Int(connection.encryptionKeySize ?? (connection.encrypted ? 16 : 0))),
                               on: connection.handle)
        case .controllerResetting:
            setState(.resetting)
        case .controllerRecovered:
            setState(.poweredOn)
        case .controllerFailed, .transportClosed:
            setState(.poweredOff)
            eventSink.finish()
        case .connected, .disconnected, .advertisingStarted, .advertisingStopped, .connectionUpdated, .dataLengthChanged,
             .remoteVersion, .encryptionChanged:
            break
        }
    }

    /// Per-connection set-up and tear-down, run synchronously in GAP's event order so the first ATT
    /// PDU of a new link always finds the server ready for it.
    private nonisolated func linkChanged(_ change: ConnectionChange) {
        let current = published.withLock { $0 }
        switch change {
        case let .opened(connection):
            let central = Central(handle: connection.handle, address: connection.peer)
            broker.centralConnected(central)
            current?.server.connectionOpened(connection.handle)
            do { try current?.engine.addConnection(connection.handle, mtu: 23) } catch {
                logger.error("notification queue for 0x\(String(connection.handle, radix: 16)): \(error)")
            }
            eventSink.yield(.centralConnected(central))
        case let .closed(connection, reason):
            let central = broker.central(connection.handle) ?? Central(handle: connection.handle, address: connection.peer)
            current?.server.connectionClosed(connection.handle)
            current?.engine.removeConnection(connection.handle)
            channels.connectionClosed(connection.handle)
            broker.indicationWatchdog.connectionClosed(connection.handle)
            broker.centralDisconnected(connection.handle)
            eventSink.yield(.centralDisconnected(central, reason: reason))
        }
    }
}
