import BLECore
import HCI
import Logging
import Synchronization

/// The LE peripheral role of GAP: advertising with resume after disconnection while connection slots
/// remain, and the per-link procedures a peripheral runs on connect (remote version, data length,
/// answering the central's encryption and parameter requests).
///
/// Advertising has one driver (`reconcile`): callers and events only change what is wanted, and the
/// driver moves the controller toward it one command at a time, recomputing from the current state
/// after every await. A connection that completes while an enable is in flight, a stop that races a
/// resume, or a reset in the middle therefore always end with the controller doing what is wanted.
///
/// Calling context: an actor; it consumes `HCIHost.events` and acts only on links where we are the
/// peripheral, so a `GAPCentral` on its own event stream can share the host.
public actor GAPPeripheral {
    public struct Configuration: Sendable {
        public var addressPolicy: AddressPolicy
        /// Simultaneous centrals; advertising pauses while all slots are used.
        public var maxConnections: Int
        public var advertisingInterval: Duration
        /// A faster interval for a while after advertising starts and after each disconnection, so
        /// that phones find the device quickly; then `advertisingInterval`.
        public var fastAdvertising: FastAdvertising?
        /// Ask for the largest LE data length on each new connection.
        public var requestMaximumDataLength: Bool
        public var readRemoteVersion: Bool
        /// Adds the controller's advertising power (TX Power Level) to content that has none, where
        /// the controller reports it and the packets have room (Apple's accessory guidelines ask for
        /// it: a phone estimates path loss from it).
        public var advertisesTxPowerLevel: Bool

        public init(addressPolicy: AddressPolicy = .publicAddress, maxConnections: Int = 1,
                    advertisingInterval: Duration = .milliseconds(100), fastAdvertising: FastAdvertising? = nil,
                    requestMaximumDataLength: Bool = true, readRemoteVersion: Bool = true,
                    advertisesTxPowerLevel: Bool = false) {
            self.addressPolicy = addressPolicy
            self.maxConnections = maxConnections
            self.advertisingInterval = advertisingInterval
            self.fastAdvertising = fastAdvertising
            self.requestMaximumDataLength = requestMaximumDataLength
            self.readRemoteVersion = readRemoteVersion
            self.advertisesTxPowerLevel = advertisesTxPowerLevel
        }
    }

    /// Supplies the long-term key for an encryption request; `nil` answers with a negative reply.
    public typealias LongTermKeyProvider = @Sendable (Link, _ random: UInt64, _ ediv: UInt16) async -> LongTermKey?

    public nonisolated let host: HCIHost
    public nonisolated let events: AsyncStream<GAPEvent>
    public nonisolated let configuration: Configuration

    private let eventSink: AsyncStream<GAPEvent>.Continuation
    private nonisolated let hostEvents: AsyncStream<HCIHostEvent>
    private let logger: Logger
    private var started = false
    private var eventTask: Task<Void, Never>? = nil
    private var longTermKeyProvider: LongTermKeyProvider? = nil

    // What is wanted.
    /// As `startAdvertising` got it, before the broadcast service data and TX power are added.
    private var requestedContent: AdvertisingContent? = nil
    /// Service data that changes while advertising (a BTHome broadcast): placed first, after the flags.
    private var broadcastServiceData: [AdvertisingContent.ServiceData] = []
    /// The content version of the last change other than the broadcast data: while the controller
    /// advertises a version at least as new, a broadcast update only replaces the data.
    private var structuralVersion = 0
    private var desiredContent: AdvertisingContent? = nil
    private var currentPlan: AdvertisingPlan? = nil
    /// Bumped whenever the content or plan changes, so the driver knows what it applied is stale.
    private var contentVersion = 0
    // What the controller is believed to do.
    private var controllerReady = true
    private var controllerAdvertising = false
    private var addressApplied = false
    private var appliedVersion: Int? = nil
    /// The interval (0.625 ms units) and type the controller was last given.
    private var appliedInterval: UInt16? = nil
    private var appliedType: LEAdvertisingType? = nil
    /// The controller refused a non-connectable broadcast beside a peripheral link: not asked again.
    private var broadcastBesideLinksRefused = false
    /// ADV_NONCONN_IND may not be sent more often than every 100 ms before Core 5.0 (Vol 6 Part B 4.4.2.2).
    private static let broadcastMinimumUnits: UInt16 = 160
    /// The fast phase lasts until then (monotonic host clock); nil outside it.
    private var fastUntil: MonotonicInstant? = nil
    private var fastPhaseTimer: TimerHandle? = nil
    /// Advertising is being turned off and on only to change the interval.
    private var intervalOnlyChange = false
    private static let firstRetryDelay = Duration.seconds(1)
    private var retryDelay = firstRetryDelay
    private var retryTimer: TimerHandle? = nil
    /// The controller refused to advertise beside a peripheral link (0x0C), whatever its LE
    /// Supported States said: it is not asked again while a central is connected.
    private var advertisingBesideLinksRefused = false
    private nonisolated let besideLinksAllowed = Mutex(true)

    /// Whether advertising continues while a central is connected (and slots remain): false where
    /// the controller's LE states forbid it or the controller refused it. Readable from any thread.
    public nonisolated var advertisesBesideLinks: Bool { besideLinksAllowed.withLock { $0 } }
    /// Bumped (synchronously, on the host's inbound context) whenever the controller stops
    /// advertising by itself: a connection was made from it, or it was reset.
    private nonisolated let controllerEpoch = Epoch()
    // The driver.
    private var driverRunning = false
    private var driverWaiters: [CheckedContinuation<GAPError?, Never>] = []
    private var failedDriverRuns = 0
    private var loggedFailedDriverRuns = 0

    public init(host: HCIHost, configuration: Configuration, logger: Logger = Logger(label: "blesensor.gap")) {
        self.host = host
        self.configuration = configuration
        self.logger = logger
        (events, eventSink) = AsyncStream.makeStream(of: GAPEvent.self)
        // Made now, so no event between the host's start and ours is missed.
        hostEvents = host.makeEventStream()
        host.acl.reserveCredits(forLinks: configuration.maxConnections)
        let epoch = controllerEpoch
        host.links.addObserver { change in
            // Legacy advertising stops the moment a connection is made from it (Vol 6 Part B 4.4.2).
            if case let .opened(link) = change, link.role == .peripheral { epoch.bump() }
        }
    }

    /// Applies the address policy and starts consuming host events. Call once the host is started.
    public func start() async throws(GAPError) {
        guard !started else { return }
        started = true
        eventTask = Task { [weak self, hostEvents] in
            for await event in hostEvents {
                guard let self else { return }
                await self.handle(event)
            }
        }
        if let error = await reconcile() { throw error }
    }

    public func setLongTermKeyProvider(_ provider: @escaping LongTermKeyProvider) {
        longTermKeyProvider = provider
    }

    /// Open links where we are the peripheral.
    public nonisolated var activeLinks: [Link] { host.links.openLinks.filter { $0.role == .peripheral } }
    public var isAdvertising: Bool { controllerAdvertising }
    public var advertisingPlan: AdvertisingPlan? { currentPlan }

    /// The address centrals see: the configured random static one, or the controller's public
    /// address once the host has read it (nil before the controller started).
    public var identityAddress: DeviceAddress? {
        get async {
            switch configuration.addressPolicy {
            case let .randomStatic(address): return DeviceAddress(address, type: .randomDevice)
            case .publicAddress: return await host.controllerInfo.map { DeviceAddress($0.publicAddress, type: .publicDevice) }
            }
        }
    }

    // MARK: Advertising (what is wanted)

    /// Places the content (see `AdvertisingPlanner`) and advertises it, connectable and undirected.
    /// Advertising then resumes by itself after each disconnection while connection slots remain.
    @discardableResult
    public func startAdvertising(_ content: AdvertisingContent) async throws(GAPError) -> AdvertisingPlan {
        guard started else { throw .notStarted }
        for units in [advertisingIntervalUnits] + (configuration.fastAdvertising.map { [Self.units($0.interval)] } ?? []) {
            guard (20...10_240).contains(Double(units) * 0.625) else {
                throw .invalidAdvertisingInterval(milliseconds: Double(units) * 0.625)
            }
        }
        let placed = try await place(content, broadcast: broadcastServiceData, previous: nil)
        requestedContent = content
        if desiredContent == nil { beginFastPhase() }
        intervalOnlyChange = false
        desiredContent = placed.content
        currentPlan = placed.plan
        contentVersion += 1
        structuralVersion = contentVersion
        if let error = await reconcile() { throw error }
        return placed.plan
    }

    /// Sets the service data broadcast in the advertising packet (after the flags, before the UUIDs
    /// and name, which move to the scan response when it is full) and updates what is advertised
    /// without interrupting it. Kept across `startAdvertising`; an empty list removes it. Returns
    /// the new plan, or nil while nothing is advertised (the data goes out when advertising starts).
    @discardableResult
    public func setBroadcastServiceData(_ items: [AdvertisingContent.ServiceData]) async throws(GAPError) -> AdvertisingPlan? {
        guard let requested = requestedContent, desiredContent != nil else {
            broadcastServiceData = items
            return nil
        }
        let placed = try await place(requested, broadcast: items, previous: currentPlan)
        broadcastServiceData = items
        desiredContent = placed.content
        currentPlan = placed.plan
        contentVersion += 1
        if let error = await reconcile() { throw error }
        return placed.plan
    }

    /// The content with the broadcast data, placed; what did not fit is logged when it differs
    /// from `previous` (a broadcast update every poll must not repeat the same warning).
    private func place(_ requested: AdvertisingContent, broadcast: [AdvertisingContent.ServiceData],
                       previous: AdvertisingPlan?) async throws(GAPError) -> (content: AdvertisingContent, plan: AdvertisingPlan) {
        var content = requested
        if !broadcast.isEmpty {
            content.serviceData = broadcast + content.serviceData
            content.serviceDataFirst = true
        }
        let plan: AdvertisingPlan
        do { plan = try AdvertisingPlanner.plan(content) } catch { throw .advertisingData(error) }
        if !plan.omittedServiceUUIDs.isEmpty, plan.omittedServiceUUIDs != previous?.omittedServiceUUIDs {
            logger.warning("service UUIDs did not fit in the advertising data or scan response and are not advertised: \(plan.omittedServiceUUIDs.map(\.description).joined(separator: ", "))")
        }
        if plan.nameShortened, previous?.nameShortened != true {
            logger.notice("local name is advertised shortened: it does not fit a 31-byte packet")
        }
        return await withTxPowerLevel(content, plan)
    }

    /// The content and plan with the controller's TX Power Level added, when wanted and known; as
    /// given when it has no room left or would push a service UUID out of the scan response.
    /// The last plan had no room for the TX Power Level (and the notice said so).
    private var txPowerLeftOut = false

    private func withTxPowerLevel(_ content: AdvertisingContent, _ plan: AdvertisingPlan) async -> (content: AdvertisingContent, plan: AdvertisingPlan) {
        guard configuration.advertisesTxPowerLevel, content.txPowerLevel == nil,
              let power = await host.controllerInfo?.advertisingTxPower else { return (content, plan) }
        var powered = content
        powered.txPowerLevel = power
        guard let poweredPlan = try? AdvertisingPlanner.plan(powered),
              poweredPlan.omittedServiceUUIDs.count == plan.omittedServiceUUIDs.count else {
            // Once per change: a broadcast re-plans on every poll.
            if !txPowerLeftOut { logger.notice("TX Power Level is not advertised: the advertising data and scan response are full") }
            txPowerLeftOut = true
            return (content, plan)
        }
        txPowerLeftOut = false
        return (powered, poweredPlan)
    }

    /// Stops advertising; returns once the controller has stopped (or failed to).
    public func stopAdvertising() async throws(GAPError) {
        desiredContent = nil
        requestedContent = nil
        if let error = await reconcile() { throw error }
    }

    public func disconnect(_ link: Link, reason: HCIStatus = .remoteUserTerminated) async throws(GAPError) {
        guard link.isOpen else { throw .linkClosed(link.id) }
        do {
            try await host.disconnect(link, reason: reason)
        } catch {
            throw .controller(error)
        }
    }

    /// Stops advertising and disconnects every central; used before an orderly shutdown.
    public func shutdown() async {
        desiredContent = nil
        _ = await reconcile()
        for link in activeLinks {
            _ = try? await host.disconnect(link, reason: .remotePowerOff)
        }
    }

    private var advertisingIntervalUnits: UInt16 { Self.units(configuration.advertisingInterval) }

    private static func units(_ interval: Duration) -> UInt16 {
        UInt16(clamping: Int((interval.milliseconds / 0.625).rounded()))
    }

    /// The interval wanted now: the fast one during the fast phase.
    private var wantedIntervalUnits: UInt16 {
        if let fast = configuration.fastAdvertising, let fastUntil, host.configuration.clock.now < fastUntil {
            return Self.units(fast.interval)
        }
        return advertisingIntervalUnits
    }

    /// Starts (or restarts) the fast phase: after advertising starts and after a central leaves.
    private func beginFastPhase() {
        guard let fast = configuration.fastAdvertising, fast.period > .zero else { return }
        let clock = host.configuration.clock
        let deadline = clock.now + fast.period
        fastUntil = deadline
        fastPhaseTimer?.cancel()
        fastPhaseTimer = clock.schedule(at: deadline) { [weak self] in
            Task { await self?.reconcileInBackground() }
        }
    }

    // MARK: Advertising (the driver)

    /// Runs the driver if it is idle, else lets the running one pick up the change; returns once
    /// it has settled, with the error that stopped it, if any.
    private func reconcile() async -> GAPError? {
        if driverRunning {
            return await withCheckedContinuation { driverWaiters.append($0) }
        }
        driverRunning = true
        let error = await drive()
        driverRunning = false
        if error != nil { failedDriverRuns += 1 }
        let waiters = driverWaiters
        driverWaiters = []
        waiters.forEach { $0.resume(returning: error) }
        return error
    }

    /// Nudges the driver from an event; errors are logged, and the next event retries.
    private func reconcileInBackground() {
        Task {
            if let error = await self.reconcile() {
                // Events that joined the same failed run share its error: it is logged once.
                if self.loggedFailedDriverRuns != self.failedDriverRuns {
                    self.loggedFailedDriverRuns = self.failedDriverRuns
                    self.logger.error("advertising: \(error)")
                }
                self.retryLater()
            } else {
                self.retryDelay = Self.firstRetryDelay
            }
        }
    }

    /// A failed step (a lost reply, a refusal) is tried again on the host clock, backing off to
    /// 30 s, so advertising does not wait for the next connection or disconnection to come back.
    private func retryLater() {
        guard retryTimer == nil else { return }
        let delay = retryDelay
        retryDelay = min(retryDelay * 2, .seconds(30))
        retryTimer = host.configuration.clock.schedule(after: delay) { [weak self] in
            Task { await self?.retryNow() }
        }
    }

    private func retryNow() {
        retryTimer = nil
        reconcileInBackground()
    }

    /// One command per step toward what is wanted, each decided from the state after the last await.
    private func drive() async -> GAPError? {
        do throws(GAPError) {
            while true {
                // Read before this step's state: the answer is awaited.
                let statesAllowAdvertisingBesideLinks = await host.controllerInfo?.canAdvertiseWhileConnected ?? true
                let statesAllowBroadcastBesideLinks = await host.controllerInfo?.canBroadcastWhileConnected ?? true
                guard controllerReady else { return nil }
                if !addressApplied {
                    if case let .randomStatic(address) = configuration.addressPolicy {
                        // Set Random Address is refused while advertising: disable it first.
                        if controllerAdvertising {
                            try await setAdvertisingEnable(false)
                            continue
                        }
                        do {
                            _ = try await host.send(HCILESetRandomAddress(address: address))
                        } catch {
                            throw .controller(error)
                        }
                    }
                    addressApplied = true
                    continue
                }
                let peripheralLinks = activeLinks.count
                let allowedBesideLinks = statesAllowAdvertisingBesideLinks && !advertisingBesideLinksRefused
                self.besideLinksAllowed.withLock { $0 = allowedBesideLinks }
                let besideLinksAllowed = peripheralLinks == 0 || allowedBesideLinks
                let slotsFree = peripheralLinks < configuration.maxConnections
                // Every slot taken, or a controller that cannot advertise connectably beside a link: a
                // broadcast (BTHome) goes on, not connectable, where the controller can.
                let broadcastOnly = (!slotsFree || !besideLinksAllowed) && !broadcastServiceData.isEmpty
                    && statesAllowBroadcastBesideLinks && !broadcastBesideLinksRefused
                let wanted = desiredContent != nil && ((slotsFree && besideLinksAllowed) || broadcastOnly)
                if !wanted {
                    guard controllerAdvertising else {
                        if desiredContent != nil, !besideLinksAllowed {
                            logger.info("advertising paused while a central is connected: this controller cannot advertise while connected")
                        } else if desiredContent != nil {
                            logger.info("advertising paused: \(peripheralLinks) of \(configuration.maxConnections) connection slots in use")
                        }
                        return nil
                    }
                    try await setAdvertisingEnable(false)
                    if desiredContent == nil {
                        logger.info("advertising disabled")
                        eventSink.yield(.advertisingStopped)
                    }
                    continue
                }
                let type: LEAdvertisingType = broadcastOnly ? .nonConnectableUndirected : .connectableUndirected
                let interval = broadcastOnly ? max(wantedIntervalUnits, Self.broadcastMinimumUnits) : wantedIntervalUnits
                if appliedVersion != contentVersion || appliedInterval != interval || appliedType != type {
                    // Only the broadcast data changed: legacy advertising data may change while
                    // advertising (Core Vol 4 Part E 7.8.7), so the advertisement is not interrupted.
                    if controllerAdvertising, appliedInterval == interval, appliedType == type,
                       let applied = appliedVersion, applied >= structuralVersion {
                        try await applyData()
                        continue
                    }
                    // Parameters may only change while advertising is off.
                    if controllerAdvertising {
                        if appliedVersion == contentVersion, appliedType == type { intervalOnlyChange = true }
                        try await setAdvertisingEnable(false)
                        continue
                    }
                    try await applyContent(interval: interval, type: type)
                    continue
                }
                guard !controllerAdvertising else { return nil }
                do {
                    try await setAdvertisingEnable(true)
                } catch {
                    // A controller whose states allow it may still refuse; then say so once and serve
                    // the connected central instead of retrying on every event.
                    guard case .controller(.commandFailed(.leSetAdvertisingEnable, .commandDisallowed)) = error,
                          !activeLinks.isEmpty else { throw error }
                    if broadcastOnly {
                        broadcastBesideLinksRefused = true
                        logger.warning("this controller cannot broadcast while every connection slot is taken (it refused non-connectable advertising beside a link): the broadcast resumes when a central disconnects")
                        continue
                    }
                    advertisingBesideLinksRefused = true
                    self.besideLinksAllowed.withLock { $0 = false }
                    logger.warning("this controller cannot advertise while connected (it refused LE Set Advertising Enable beside a link): advertising again when the central disconnects")
                    continue
                }
                if controllerAdvertising, broadcastOnly {
                    // Not advertising for connections: no advertisingStarted event.
                    intervalOnlyChange = false
                    if activeLinks.count < configuration.maxConnections {
                        logger.info("broadcasting, not connectable, while a central is connected: this controller cannot advertise connectably beside a link")
                    } else {
                        logger.info("broadcasting, not connectable, while all \(configuration.maxConnections) connection slot(s) are in use")
                    }
                } else if controllerAdvertising, intervalOnlyChange {
                    // The fast phase ended: the same advertising, slower; not a new start.
                    intervalOnlyChange = false
                    logger.info("advertising interval now \(Double(interval) * 0.625) ms")
                } else if controllerAdvertising, let plan = currentPlan {
                    logger.info("advertising enabled (\(activeLinks.count)/\(configuration.maxConnections) connected, every \(Double(interval) * 0.625) ms)")
                    eventSink.yield(.advertisingStarted(plan))
                }
            }
        } catch {
            return error
        }
    }

    /// Sends LE Set Advertising Enable and records what the controller does afterwards: an enable
    /// that raced a connection (or a reset) leaves the controller not advertising.
    private func setAdvertisingEnable(_ enable: Bool) async throws(GAPError) {
        let epoch = controllerEpoch.value
        do {
            _ = try await host.send(HCILESetAdvertisingEnable(enable: enable))
        } catch {
            throw .controller(error)
        }
        controllerAdvertising = enable && controllerEpoch.value == epoch
    }

    private func applyContent(interval: UInt16, type: LEAdvertisingType) async throws(GAPError) {
        guard let plan = currentPlan else { return }
        let version = contentVersion
        do {
            _ = try await host.send(HCILESetAdvertisingParameters(
                intervalMin: interval, intervalMax: interval,
                type: type, ownAddressType: configuration.addressPolicy.ownAddressType))
            try await sendData(plan)
        } catch {
            throw .controller(error)
        }
        appliedVersion = version
        appliedInterval = interval
        appliedType = type
    }

    private func applyData() async throws(GAPError) {
        guard let plan = currentPlan else { return }
        let version = contentVersion
        do { try await sendData(plan) } catch { throw .controller(error) }
        appliedVersion = version
    }

    /// The plan's advertising data and scan response, in that order.
    private func sendData(_ plan: AdvertisingPlan) async throws(HCIHostError) {
        guard let data = LELegacyAdvertisingPayload(plan.advertisingData),
              let scanResponse = LELegacyAdvertisingPayload(plan.scanResponseData) else { return }
        _ = try await host.send(HCILESetAdvertisingData(payload: data))
        _ = try await host.send(HCILESetScanResponseData(payload: scanResponse))
    }

    // MARK: Host events

    private func handle(_ event: HCIHostEvent) {
        switch event {
        case let .linkOpened(link):
            guard link.role == .peripheral else { return }
            // The controller stopped advertising for this connection (the epoch already says so).
            controllerAdvertising = false
            intervalOnlyChange = false
            logger.info("central connected: \(link)")
            eventSink.yield(.connected(link))
            startLinkProcedures(link)
            reconcileInBackground()
        case let .linkClosed(link, reason):
            guard link.role == .peripheral else { return }
            logger.info("central disconnected: \(link.peer) reason \(reason)")
            eventSink.yield(.disconnected(link, reason: reason))
            beginFastPhase()
            reconcileInBackground()
        case let .linkEvent(link, linkEvent):
            // A central link's events belong to GAPCentral (it answers its own parameter requests).
            guard link.role == .peripheral else { return }
            handleLinkEvent(link, linkEvent)
        case .controllerEvent:
            break
        case let .controllerResetting(reason):
            controllerReady = false
            controllerAdvertising = false
            addressApplied = false
            appliedVersion = nil
            appliedInterval = nil
            appliedType = nil
            intervalOnlyChange = false
            controllerEpoch.bump()
            eventSink.yield(.controllerResetting(reason))
        case let .controllerRecovered(info):
            controllerReady = true
            eventSink.yield(.controllerRecovered(info))
            reconcileInBackground()
        case let .controllerFailed(error):
            controllerReady = false
            controllerAdvertising = false
            eventSink.yield(.controllerFailed(error))
        case let .transportClosed(error):
            controllerReady = false
            controllerAdvertising = false
            eventSink.yield(.transportClosed(error))
            eventSink.finish()
        }
    }

    private func handleLinkEvent(_ link: Link, _ event: HCIEvent) {
        switch event {
        case .le(.connectionUpdateComplete):
            eventSink.yield(.connectionUpdated(link))
        case .le(.dataLengthChange):
            eventSink.yield(.dataLengthChanged(link))
        case let .encryptionChange(change):
            eventSink.yield(.encryptionChanged(link, status: change.status))
        case .encryptionKeyRefreshComplete(let refresh):
            eventSink.yield(.encryptionChanged(link, status: refresh.status))
        case .readRemoteVersionComplete:
            eventSink.yield(.remoteVersion(link))
        case let .le(.longTermKeyRequest(request)):
            answerLongTermKeyRequest(request, on: link)
        case let .le(.remoteConnectionParameterRequest(request)):
            // The central knows its scheduling constraints; accept what it asks for.
            Task {
                _ = try? await self.host.send(HCILERemoteConnectionParameterRequestReply(handle: link.handle, parameters: request.parameters), for: link)
            }
        default:
            logger.trace("unhandled event on \(link.id): \(event)")
        }
    }

    private func answerLongTermKeyRequest(_ request: LELongTermKeyRequestEvent, on link: Link) {
        let provider = longTermKeyProvider
        Task {
            let key = await provider?(link, request.random, request.ediv)
            do {
                if let key {
                    // Recorded before the reply, so the Encryption Change it leads to finds it.
                    link.expectEncryption(with: key.properties)
                    _ = try await self.host.send(HCILELongTermKeyRequestReply(handle: link.handle, longTermKey: key.value), for: link)
                } else {
                    _ = try await self.host.send(HCILELongTermKeyRequestNegativeReply(handle: link.handle), for: link)
                }
            } catch {
                self.logger.warning("\(link.id): could not answer the long term key request: \(error)")
            }
        }
    }

    private func startLinkProcedures(_ link: Link) {
        LinkSetup.start(on: link, host: host, readRemoteVersion: configuration.readRemoteVersion,
                        requestMaximumDataLength: configuration.requestMaximumDataLength, logger: logger)
    }
}

/// Counts the times the controller stopped advertising by itself; bumped on the host's inbound
/// context, read by the driver around each enable.
final class Epoch: Sendable {
    private let counter = Atomic<UInt64>(0)
    var value: UInt64 { counter.load(ordering: .sequentiallyConsistent) }
    func bump() { counter.wrappingAdd(1, ordering: .sequentiallyConsistent) }
}
