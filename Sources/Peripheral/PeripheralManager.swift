import ATT
import BLECore
import GAP
import GATT
import GATTNotify
import GATTServer
import HCI
import Host
import L2CAP
import Logging
import SMP
import Synchronization

/// The peripheral role, shaped like CoreBluetooth's `CBPeripheralManager`: add services, publish,
/// advertise, answer each read and write batch exactly once, and update subscribers through a
/// backpressure-aware queue (`updateValue` returns `false` when full; `.readyToUpdateSubscribers`
/// follows, naming the centrals that have room again).
///
/// Calling context: an actor for configuration and life cycle; `respond`, `updateValue`,
/// `centralsReadyToUpdate` and `statistics` are `nonisolated` and synchronous, callable from any thread.
public actor PeripheralManager {
    public struct Configuration: Sendable {
        /// GAP Device Name (the full name; advertising may carry a shortened one).
        public var deviceName: String
        public var appearance: UInt16 = 0
        public var addressPolicy: AddressPolicy = .publicAddress
        public var maxConnections = 1
        public var advertisingInterval: Duration = .milliseconds(100)
        /// A faster interval for a while after advertising starts and after each disconnection.
        public var fastAdvertising: FastAdvertising? = nil
        /// Advertise the controller's TX Power Level where it reports one and the packets have room.
        public var advertisesTxPowerLevel = false
        /// Our ATT MTU, 23…517.
        public var mtu = 247
        public var queueLimits: QueueLimits = .standard
        /// How long the application has to answer a read or write before the central gets Unlikely Error.
        public var requestTimeout: Duration = .seconds(10)
        /// The ATT transaction timeout for indications (Core Vol 3 Part F 3.3.3).
        public var indicationTimeout: Duration = .seconds(30)
        /// Write commands (writes without response) waiting in `events` for the application; more
        /// are dropped and counted (`droppedWriteCommands`).
        public var maxUndeliveredWriteCommands = 256
        /// Every timer of the stack runs on this clock (a `ManualClock` in tests); with
        /// `init(stack:)` the stack's clock is used instead.
        public var clock: any HostClock = SystemClock.shared
        /// Pairing and bonds, for `init(transport:)`, which builds the stack with them (with
        /// `init(stack:)` the stack's own setup serves; giving one here too is refused). Nil refuses
        /// pairing (Pairing Not Supported) and keeps links unencrypted. With it, bonded centrals'
        /// subscriptions, Client Supported Features and change-awareness are kept in the bond store
        /// and restored once they encrypt again, with the values they missed.
        public var security: SecuritySetup? = nil
        /// Asked of every central after it connects (Apple's accessory rules want the accessory to
        /// ask); nil leaves the central's parameters alone.
        public var connectionParameterRequest: ConnectionParameterRequest? = .standard

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

    public nonisolated let events: PeripheralEvents
    public nonisolated let configuration: Configuration
    /// The host below this facade, which a `CentralManager(stack:)` may share.
    public nonisolated let stack: BLEStack
    /// We built the stack (`init(transport:)`), so our `shutdown()` closes it.
    private nonisolated let ownsStack: Bool
    /// The stack's layers: the package's daemon and tests reach into them, applications do not.
    package nonisolated var host: HCIHost { stack.host }
    package nonisolated let gap: GAPPeripheral
    nonisolated var channels: L2CAPFixedChannels { stack.channels }
    nonisolated let parameterRequests: ConnectionParameterRequests?
    /// The stack's Security Manager, when it has a security setup.
    package nonisolated var security: SecurityManager? { stack.security }
    /// Our address on links, known once GAP applied the address policy (c1, f5 and f6 take it).
    private nonisolated let localAddress: Locked<DeviceAddress>
    /// The Security Manager's events about peripheral links.
    private nonisolated let securityEvents: AsyncStream<SecurityEvent>
    /// Set by `shutdown()` on a shared stack: the link observer, which cannot be removed, leaves
    /// later links alone.
    private nonisolated let detached = Locked(false)
    private var securityTask: Task<Void, Never>? = nil
    /// The centrals of our open peripheral links, as the application's events name them.
    nonisolated let connectedCentrals = ConnectedCentrals()
    /// Reads and write batches the application has not answered yet.
    nonisolated let pendingRequests: PendingRequests
    nonisolated let subscribers: SubscriberTable
    /// Write commands handed to the application and not yet taken from its event stream.
    nonisolated let commandBudget: CommandBudget
    nonisolated let serverDelegate: PeripheralServerDelegate
    nonisolated let published = Mutex<Published?>(nil)
    nonisolated var roomWaiters: LinkRoomWaiters { stack.roomWaiters }
    private nonisolated let readyHandler = Mutex<ReadyHandler?>(nil)
    nonisolated let eventSink: AsyncStream<PeripheralEvent>.Continuation
    nonisolated let logger: Logger
    /// Bonded centrals' GATT state across connections, when `configuration.security` is set.
    nonisolated let bondedClients: BondedClients?
    /// The services added so far, or why the built-in GAP and GATT services could not be made
    /// from the configuration (every call that needs the database reports that error).
    private var builder: Result<AttributeDatabaseBuilder, GATTDatabaseError>
    private var state = PeripheralState.unknown
    private var gapTask: Task<Void, Never>? = nil

    /// On a stack of its own, built from `configuration` (its clock and security setup), which
    /// `shutdown()` closes.
    public init(transport: any HCITransport, configuration: Configuration, logger: Logger = Logger(label: "blesensor.peripheral")) {
        var stackConfiguration = BLEStack.Configuration()
        stackConfiguration.clock = configuration.clock
        stackConfiguration.security = configuration.security
        let stack = BLEStack(transport: transport, configuration: stackConfiguration, logger: logger)
        var own = configuration
        own.security = nil
        // A new stack has no peripheral role yet.
        try! self.init(stack: stack, configuration: own, ownsStack: true, logger: logger)
    }

    /// The peripheral role on `stack`, whose security setup and clock serve it; the caller shuts the
    /// stack down. Throws when the stack has a peripheral role already, or when `configuration`
    /// names a security setup of its own (one set of bonds and one identity serve both roles).
    public init(stack: BLEStack, configuration: Configuration, logger: Logger = Logger(label: "blesensor.peripheral")) throws(PeripheralError) {
        guard configuration.security == nil else { throw .securityBelongsToTheStack }
        try self.init(stack: stack, configuration: configuration, ownsStack: false, logger: logger)
    }

    private init(stack: BLEStack, configuration: Configuration, ownsStack: Bool, logger: Logger) throws(PeripheralError) {
        self.stack = stack
        self.ownsStack = ownsStack
        var configuration = configuration
        configuration.security = stack.configuration.security
        configuration.clock = stack.configuration.clock
        self.configuration = configuration
        self.logger = logger
        let (stream, sink) = AsyncStream.makeStream(of: PeripheralEvent.self)
        self.eventSink = sink
        let host = stack.host
        gap = GAPPeripheral(host: host, configuration: .init(
            addressPolicy: configuration.addressPolicy, maxConnections: configuration.maxConnections,
            advertisingInterval: configuration.advertisingInterval, fastAdvertising: configuration.fastAdvertising,
            advertisesTxPowerLevel: configuration.advertisesTxPowerLevel), logger: logger)
        let localAddress = Locked(DeviceAddress(.zero, type: .publicDevice))
        self.localAddress = localAddress
        do {
            securityEvents = try stack.attach(.peripheral, maxLinks: configuration.maxConnections,
                                              hooks: RoleHooks(localAddress: { localAddress.value }))
        } catch {
            // Making our GAP set the reserve for our links alone; the roles attached keep theirs.
            stack.reserveCreditsForAttachedRoles()
            throw .stack(error)
        }
        let channels = stack.channels
        parameterRequests = configuration.connectionParameterRequest.map {
            ConnectionParameterRequests(request: $0, channels: channels, clock: configuration.clock, logger: logger)
        }
        pendingRequests = PendingRequests(timeout: configuration.requestTimeout, clock: configuration.clock, logger: logger)
        subscribers = SubscriberTable(keepsLastValues: configuration.security != nil)
        commandBudget = CommandBudget(limit: configuration.maxUndeliveredWriteCommands)
        serverDelegate = PeripheralServerDelegate(centrals: connectedCentrals, requests: pendingRequests, subscribers: subscribers,
                                                  commandBudget: commandBudget, logger: logger) { event in sink.yield(event) }
        events = PeripheralEvents(stream: stream, budget: commandBudget)
        builder = Result { () throws(GATTDatabaseError) in
            try AttributeDatabaseBuilder(builtInServices: BuiltInServices(deviceName: configuration.deviceName,
                                                                          appearance: configuration.appearance))
        }
        bondedClients = configuration.security.map { BondedClients(writer: BondStoreWriter(store: $0.store, logger: logger)) }
        host.links.addObserver { [weak self] change in self?.linkChanged(change) }
        if bondedClients != nil {
            serverDelegate.observeClientState { [weak self] link, change in self?.clientStateChanged(link, change) }
            // Saved with the bond in one transaction: subscriptions made before pairing completed.
            stack.security?.setGATTStateProvider { [weak self] link in self?.gattSnapshot(of: link) ?? .empty }
        }
    }

    // MARK: Life cycle

    /// Brings the controller up; the state becomes `.poweredOn` (or says why not).
    public func start() async throws(PeripheralError) {
        // Started already: a second start would read the GAP and security events twice.
        guard gapTask == nil else { return }
        do {
            _ = try await stack.start()
        } catch {
            switch error {
            case let .controller(failure):
                setState(RadioState(failedStart: failure))
                throw .controller(failure)
            case let .bondStore(failure):
                setState(.poweredOff)
                throw .bondStore(failure)
            case .roleTaken, .cancelled:
                throw .stack(error)
            }
        }
        do { try await gap.start() } catch { throw .advertising(error) }
        if let security { try await startSecurity(security) }
        gapTask = Task { [weak self, gap] in
            for await event in gap.events {
                guard let self else { return }
                await self.handle(event)
            }
        }
        setState(.poweredOn)
    }

    /// Stops advertising and, with a stack of our own, closes it. On a shared stack: disconnects
    /// our links and leaves the stack (and its controller) to the other role.
    public func shutdown() async {
        await gap.shutdown()
        if ownsStack {
            await stack.shutdown()
        } else {
            for link in host.links.openLinks where link.role == .peripheral {
                try? await gap.disconnect(link)
            }
            detached.withLock { $0 = true }
            channels.removeHandler(for: L2CAPChannelID.attribute, role: .peripheral)
            stack.detach(.peripheral)
            setState(.poweredOff)
        }
        gapTask?.cancel()
        securityTask?.cancel()
        // What was asked for reaches the store before a restart reads it.
        await bondedClients?.writer.close()
    }

    /// Loads the bonds, answers LTK requests from them and passes pairing outcomes on as events.
    private func startSecurity(_ security: SecurityManager) async throws(PeripheralError) {
        let address = await gap.identityAddress
        if let address { localAddress.value = address }
        if let store = configuration.security?.store { await loadBondedStates(security, store: store) }
        await gap.setLongTermKeyProvider { link, random, ediv in
            security.longTermKey(for: link, random: random, ediv: ediv).map { LongTermKey(value: $0.key, properties: $0.properties) }
        }
        let centrals = connectedCentrals, sink = eventSink, events = securityEvents
        securityTask = Task { [weak self] in
            for await event in events {
                switch event {
                case let .paired(link, _, bonded):
                    if bonded { self?.bondEstablished(on: link) }
                    if let central = centrals.central(on: link.id) { sink.yield(.paired(central, bonded: bonded)) }
                case let .pairingFailed(link, reason, detail):
                    if let central = centrals.central(on: link.id) { sink.yield(.pairingFailed(central, reason, detail: detail)) }
                case let .bondRemoved(identity):
                    self?.bondRemoved(identity)
                case let .bondTakeoverRefused(link, _):
                    // Encrypted with a key we did not keep: no use to anyone, and a hostile peer's.
                    try? await self?.gap.disconnect(link, reason: .authenticationFailure)
                case .pairingStarted, .bondedPeerConnected, .bondNotStored, .securityRequested:
                    break
                }
            }
        }
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
        var builder = try databaseBuilder()
        do { try builder.add(service) } catch { throw .database(error) }
        try republish(builder)
        self.builder = .success(builder)
    }

    /// Removes a service added earlier (its characteristics' subscriptions, routes and queued values
    /// go with it). After `publish()` the change is served at once and announced with Service
    /// Changed, as for `add`. Throws when no such service was added, when it is the built-in GAP or
    /// GATT service, or when another service still includes it.
    public func remove(serviceUUID: BluetoothUUID) throws(PeripheralError) {
        let builder = try databaseBuilder()
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
        self.builder = .success(rebuilt)
    }

    private func databaseBuilder() throws(PeripheralError) -> AttributeDatabaseBuilder {
        switch builder {
        case let .success(builder): return builder
        case let .failure(error): throw .database(error)
        }
    }

    /// Serves the database `builder` builds, if services are published already: the server swaps
    /// databases, routes follow the new handles, values queued for removed characteristics are
    /// purged, and Service Changed goes to the centrals that enabled its indications. Nothing
    /// changes when the build fails.
    private func republish(_ builder: AttributeDatabaseBuilder) throws(PeripheralError) {
        guard let current = published.withLock({ $0 }) else { return }
        let database: AttributeDatabase
        do { database = try builder.build() } catch { throw .database(error) }
        let range = ServiceChangedRange.affected(from: current.database, to: database)
        let removed = current.database.characteristics.filter { database.characteristic(id: $0.id) == nil }
        current.server.replaceDatabase(database)
        subscribers.republish(Dictionary(uniqueKeysWithValues: database.characteristics.map { ($0.id, $0.valueHandle) }),
                              removed: Set(removed.map(\.id)))
        // Before `published` moves on: abandoned indications of removed characteristics are still
        // named from the database they were queued under.
        for characteristic in removed { current.engine.purge(characteristic: characteristic.valueHandle) }
        let next = Published(database: database, server: current.server, engine: current.engine)
        published.withLock { $0 = next }
        if let bondedClients {
            // Live centrals keep their subscriptions (carried over by the server) under the new handles.
            for link in current.server.openLinks where bondedClients.liveIdentity(of: link.id) != nil {
                if let snapshot = gattSnapshot(of: link) { bondedClients.saveLive(link.id, snapshot) }
            }
            refreshAwayRoutes()
        }
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
            .filter { $0.configuration.contains(.indications) }.map(\.link.id)
        guard !centrals.isEmpty else { return }
        let value = ServiceChangedRange.value(for: range)
        logger.info("Service Changed 0x\(String(range.lowerBound, radix: 16))-0x\(String(range.upperBound, radix: 16)) indicated to \(centrals.count) central(s)")
        let engine = published.engine
        // An indication is never dropped: a central whose queue is full gets it once there is room,
        // without holding back the others.
        for central in centrals where !engine.update(value, characteristic: handle, notifying: [], indicating: [central]) {
            Task {
                // Only cancellation ends the wait early, and nothing cancels this task.
                try? await engine.updateWaitingForRoom(value, characteristic: handle, indicating: [central])
            }
        }
    }

    /// Freezes the database and starts serving it.
    public func publish() throws(PeripheralError) {
        guard published.withLock({ $0 == nil }) else { throw .alreadyPublished }
        let builder = try databaseBuilder()
        let database: AttributeDatabase
        do { database = try builder.build() } catch { throw .database(error) }
        var serverConfiguration = GATTServer.Configuration()
        serverConfiguration.mtu = configuration.mtu
        let server = GATTServer(database: database, configuration: serverConfiguration, delegate: serverDelegate, logger: logger,
                                output: stack.attBearer)
        let engine = NotificationEngine(sink: ACLNotificationSink(flowController: host.acl), defaultLimits: configuration.queueLimits,
                                        clock: configuration.clock, indicationTimeout: configuration.indicationTimeout) { [weak self] event in
            self?.engineEvent(event)
        }
        host.acl.addDrainObserver { [weak engine] _ in engine?.pump() }
        serverDelegate.attach(engine) { server.supportsMultipleHandleValueNotifications($0) }
        // Our server serves the links where we are the peripheral; a central role sharing the
        // controller has its own client and server for its links.
        channels.setHandler(for: L2CAPChannelID.attribute, role: .peripheral) { link, payload in server.receive(payload, on: link) }
        if let security {
            server.setSignedWriteVerifier(SignedWriteVerifier { link, pdu in security.verifySignedWrite(pdu, on: link) })
        }
        subscribers.publish(Dictionary(uniqueKeysWithValues: database.characteristics.map { ($0.id, $0.valueHandle) }))
        published.withLock { $0 = Published(database: database, server: server, engine: engine) }
        refreshAwayRoutes()
        // Links whose centrals connected before publication are served from now on.
        let served = ServedLink(current: published.withLock { $0 }, logger: logger)
        for link in host.links.openLinks where link.role == .peripheral && connectedCentrals.central(on: link.id) != nil {
            _ = served.server?.opened(link)
            _ = served.engine?.opened(link)
        }
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

    /// Broadcasts `data` as service data for `uuid` in the advertising packet (a BTHome
    /// advertisement), updating what is advertised without interrupting it; the service UUIDs and
    /// the name move to the scan response when the packet is full. Nil data removes it.
    public func setBroadcastServiceData(_ data: [UInt8]?, for uuid: BluetoothUUID) async throws(PeripheralError) {
        do {
            try await gap.setBroadcastServiceData(data.map { [AdvertisingContent.ServiceData(uuid: uuid, data: $0)] } ?? [])
        } catch {
            throw .advertising(error)
        }
    }

    // MARK: Answers

    /// Answers a read request exactly once; a second answer is reported, never applied.
    public nonisolated func respond(to request: ReadRequest, with result: Result<[UInt8], ATTErrorCode>) throws(RespondError) {
        try pendingRequests.respond(to: request.id, read: result)
    }

    /// Answers a write batch exactly once, as a whole.
    public nonisolated func respond(to batch: WriteBatch, with result: Result<Void, ATTErrorCode>) throws(RespondError) {
        guard batch.needsResponse else { return }
        try pendingRequests.respond(to: batch.id, write: result)
    }

    // MARK: Updates

    /// How queued values of a notifying characteristic combine (default: only the latest matters).
    public nonisolated func setUpdatePolicy(_ policy: UpdatePolicy, for characteristic: CharacteristicID) {
        subscribers.setPolicy(policy, for: characteristic)
    }

    /// Sends `value` to the subscribed centrals (all of them, or those listed). All or nothing:
    /// returns `false` when a transmit queue of any of them is full, and then nothing is queued for
    /// any; `.readyToUpdateSubscribers` follows, naming the centrals with room again, and
    /// `centralsReadyToUpdate(_:)` says which can take the value now. Values longer than MTU−3 are
    /// truncated in the notification, as CoreBluetooth does.
    @discardableResult
    public nonisolated func updateValue(_ value: [UInt8], for characteristic: CharacteristicID, onSubscribedCentrals centrals: [ConnectedCentral]? = nil) -> Bool {
        guard let published = published.withLock({ $0 }), let route = route(of: characteristic, among: centrals, recording: value) else { return false }
        return published.engine.update(value, characteristic: route.valueHandle, notifying: route.notify, policy: route.policy,
                                       indicating: route.indicate)
    }

    /// Runs `body`; the updates it makes leave for the controller together when it returns, in one
    /// write where the transport allows: several values per timer tick cost one system call.
    public nonisolated func batchingUpdates<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        try host.transport.combiningWrites(body)
    }

    /// `updateValue` that waits for room instead of returning `false`.
    public nonisolated func updateValueWaitingForRoom(_ value: [UInt8], for characteristic: CharacteristicID, onSubscribedCentrals centrals: [ConnectedCentral]? = nil) async throws(CancellationError) {
        guard let published = published.withLock({ $0 }), let route = route(of: characteristic, among: centrals, recording: value) else { return }
        try await published.engine.updateWaitingForRoom(value, characteristic: route.valueHandle, notifying: route.notify,
                                                        policy: route.policy, indicating: route.indicate)
    }

    /// The subscribed centrals of `characteristic` whose transmit queues can take an update of
    /// `length` octets now; after `updateValue` returned `false`, update these while the others drain.
    public nonisolated func centralsReadyToUpdate(_ characteristic: CharacteristicID, length: Int = 20) -> [ConnectedCentral] {
        guard let published = published.withLock({ $0 }), let route = route(of: characteristic, among: nil) else { return [] }
        let ready = published.engine.linksWithRoom(among: route.notify, characteristic: route.valueHandle, policy: route.policy, length: length)
            + published.engine.linksWithRoom(among: route.indicate, characteristic: route.valueHandle, policy: .indication, length: length)
        return connectedCentrals.centrals(on: ready)
    }

    /// Delivers "ready to update subscribers" straight from the thread that freed the room
    /// instead of through `events`: usually the host's transport thread as Number Of Completed
    /// Packets come in, but also, re-entrantly, inside an `updateValue` or `batchingUpdates` of
    /// the application's own when another link regained room meanwhile. A streaming application
    /// refills its queues there without a task switch per refill. The handler may call
    /// `updateValue`, must return quickly, never block, and never take a lock the application
    /// holds while calling `updateValue`. It is not called when no connected central is ready (the
    /// last one just closed), as updates to nobody are always accepted. `nil` goes back to `events`.
    public nonisolated func setReadyToUpdateHandler(_ handler: (@Sendable ([ConnectedCentral]) -> Void)?) {
        readyHandler.withLock { $0 = handler.map(ReadyHandler.init(call:)) }
    }

    struct ReadyHandler: Sendable { let call: @Sendable ([ConnectedCentral]) -> Void }

    /// Queue counters per link and characteristic.
    public nonisolated func statistics() -> NotificationStatistics? {
        published.withLock { $0 }?.engine.statistics()
    }

    /// Values notified or indicated per characteristic UUID since start, every link included
    /// (those gone too): what a metrics endpoint counts.
    public nonisolated func notificationsSentByCharacteristic() -> [BluetoothUUID: Int64] {
        guard let published = published.withLock({ $0 }) else { return [:] }
        // Every characteristic that can notify or indicate from the start, at 0, so a rate over
        // its counter has points before the first value goes out.
        var sent: [BluetoothUUID: Int64] = [:]
        for characteristic in published.database.characteristics
        where !characteristic.properties.isDisjoint(with: [.notify, .indicate]) {
            sent[characteristic.uuid] = 0
        }
        for (handle, counters) in published.engine.statistics().characteristics {
            guard let characteristic = published.database.characteristic(containing: handle) else { continue }
            sent[characteristic.uuid, default: 0] += counters.sent
        }
        return sent
    }

    /// Write commands dropped because the application did not take its events fast enough.
    public nonisolated var droppedWriteCommands: Int64 { commandBudget.dropped }

    /// The characteristic's route, narrowed to `centrals` when given; `nil` for an unknown characteristic.
    /// An update of all subscribers (`recording` its value) is also what a bonded central that is
    /// away missed: the value is kept for its return and the central flagged (once) in the store.
    private nonisolated func route(of characteristic: CharacteristicID, among centrals: [ConnectedCentral]?,
                                   recording value: [UInt8]? = nil) -> SubscriberTable.Targets? {
        let found: SubscriberTable.Targets?
        if centrals == nil, let value, let recorded = subscribers.recordUpdate(of: characteristic, value: value) {
            found = recorded.0
            if !recorded.away.isEmpty, recorded.0.valueHandle != 0 {
                bondedClients?.markChanged(valueHandle: recorded.0.valueHandle, for: recorded.away)
            }
        } else {
            found = subscribers.targets(of: characteristic)
        }
        guard var route = found, route.valueHandle != 0 else { return nil }
        if let centrals {
            let chosen = Set(centrals.map(\.link.id))
            route.notify = route.notify.filter(chosen.contains)
            route.indicate = route.indicate.filter(chosen.contains)
        }
        return route
    }

    // MARK: Engine and link events

    private nonisolated func engineEvent(_ event: NotificationEvent) {
        switch event {
        case let .readyToUpdateSubscribers(links):
            let centrals = connectedCentrals.centrals(on: links)
            if let handler = readyHandler.withLock({ $0 }) {
                // No central left to update (the last one just closed): a handler that refills
                // until refused would spin, as updates to nobody are always accepted.
                if !centrals.isEmpty { handler.call(centrals) }
            } else {
                eventSink.yield(.readyToUpdateSubscribers(centrals))
            }
        case let .indicationsAbandoned(link, indications):
            guard let central = connectedCentrals.central(on: link) else { return }
            let database = published.withLock { $0?.database }
            let updates = indications.map {
                AbandonedUpdate(characteristic: database?.characteristic(forValueHandle: $0.characteristic)?.id
                                    ?? CharacteristicID("handle-0x\(String($0.characteristic, radix: 16))"),
                                value: $0.value, wasSent: $0.wasSent)
            }
            eventSink.yield(.indicationsAbandoned(central, updates))
        case let .indicationTimedOut(link):
            logger.error("\(link.id): indication not confirmed within the ATT transaction timeout (\(configuration.indicationTimeout)); disconnecting")
            if let central = connectedCentrals.central(on: link.id) { eventSink.yield(.indicationTimedOut(central)) }
            let gap = gap
            Task { try? await gap.disconnect(link, reason: .remoteUserTerminated) }
        case let .indicationConfirmed(link, handle):
            guard let central = connectedCentrals.central(on: link),
                  let id = published.withLock({ $0?.database.characteristic(forValueHandle: handle)?.id }) else { return }
            eventSink.yield(.indicationConfirmed(central, id))
        }
    }

    private func handle(_ event: GAPEvent) {
        if let lifecycle = event.lifecycle { return follow(lifecycle) }
        switch event {
        case let .encryptionChanged(link, status):
            linkAttachments().encryptionChanged(link, status: status)
        case .connected, .disconnected, .advertisingStarted, .advertisingStopped, .connectionUpdated, .dataLengthChanged,
             .remoteVersion, .controllerResetting, .controllerRecovered, .controllerFailed, .transportClosed:
            break
        }
    }

    /// Resets and the end of the controller: the state follows, and a loss ends the events.
    private func follow(_ lifecycle: ControllerLifecycle) {
        if let loss = lifecycle.loss { eventSink.yield(.controllerLost(loss)) }
        setState(lifecycle.state)
        if lifecycle.loss != nil { eventSink.finish() }
    }

    /// Per-link set-up and tear-down, run synchronously in the host's inbound order so the first
    /// ATT PDU of a new link always finds the server ready for it.
    private nonisolated func linkChanged(_ change: LinkChange) {
        switch change {
        case let .opened(link):
            // After leaving a shared stack, its links belong to a peripheral role that attaches later.
            guard link.role == .peripheral, !detached.value else { return }
            linkAttachments().opened(link)
        case let .closed(link, reason):
            guard link.role == .peripheral else { return }
            linkAttachments().closed(link, reason: reason)
        }
    }
}
