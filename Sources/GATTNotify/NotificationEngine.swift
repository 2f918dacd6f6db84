import BLECore
import HCI
import Synchronization

/// Backpressure-aware queue between `updateValue(_:for:onSubscribedCentrals:)` and the ACL layer.
///
/// Each link has a bounded queue (entries and bytes). Notifications coalesce to the latest value or
/// go through a merge hook, so a central that stops acknowledging costs bounded memory; indications
/// are FIFO with one outstanding per link, under the ATT transaction timer (30 s by default): an
/// indication that stays unconfirmed is reported as `.indicationTimedOut` so its link can be
/// dropped. Values leave only when the sink accepts them (the ACL adapter accepts only while the
/// controller's credits keep its queue short), one link per turn so a stalled central does not
/// delay a healthy one.
///
/// Calling context: every method is synchronous (except `updateWaitingForRoom`) and may be called
/// from any thread. State is behind one mutex that is never held while calling the sink, a merge
/// hook excepted (it runs under the lock and must not call back). Whichever thread finds the pump
/// idle — after an `update`, a `pump()` from the sink, a confirmation or a removal — runs it; calls
/// arriving meanwhile (including re-entrant ones from inside `trySend`) leave their work to it.
/// Not an actor on purpose: an update costs well under a microsecond and at most the PDU's
/// allocation per central, which a hop to an executor would exceed.
public final class NotificationEngine: Sendable {
    private let state = Mutex(EngineState())
    private let sink: any NotificationSink
    /// Read once: the sink's headroom does not change.
    private let headroom: Int
    private let defaultLimits: QueueLimits
    private let clock: any HostClock
    private let indicationTimeout: Duration
    private let onEvent: @Sendable (NotificationEvent) -> Void
    private let eventContinuation: AsyncStream<NotificationEvent>.Continuation

    /// Events for one consumer; the newest 256 are kept if nobody reads.
    public let events: AsyncStream<NotificationEvent>

    /// - Parameters:
    ///   - sink: receives finished L2CAP PDUs; see `NotificationSink` for its duties.
    ///   - defaultLimits: queue capacity of links added without their own limits.
    ///   - clock: runs the ATT transaction timer of indications.
    ///   - onEvent: called synchronously, without the lock, on the thread that caused the event;
    ///     the same events are also delivered on `events`.
    public init(sink: any NotificationSink, defaultLimits: QueueLimits = .standard,
                clock: any HostClock = SystemClock.shared, indicationTimeout: Duration = .seconds(30),
                onEvent: @escaping @Sendable (NotificationEvent) -> Void = { _ in }) {
        self.sink = sink
        self.headroom = sink.headroom
        self.defaultLimits = defaultLimits
        self.clock = clock
        self.indicationTimeout = indicationTimeout
        self.onEvent = onEvent
        (events, eventContinuation) = AsyncStream.makeStream(of: NotificationEvent.self, bufferingPolicy: .bufferingNewest(256))
    }

    deinit {
        eventContinuation.finish()
    }

    // MARK: Link lifecycle

    /// Registers a link when it comes up. Its ATT MTU is read from the link whenever a value is
    /// admitted, so values queued before an Exchange MTU keep their truncation (as CoreBluetooth
    /// truncates when `updateValue` is called) and later ones use the new MTU.
    public func addLink(_ link: Link, limits: QueueLimits? = nil) throws(NotificationEngineError) {
        let mtu = link.mtu
        guard (23...Int(UInt16.max)).contains(mtu) else { throw .invalidMTU(mtu) }
        let limits = limits ?? defaultLimits
        try state.withLock { state throws(NotificationEngineError) in
            guard state.add(ConnectionQueue(link: link, limits: limits)) else { throw .duplicateLink(link.id) }
        }
    }

    /// Whether queued notifications on `link` may leave combined in ATT Multiple Handle Value
    /// Notifications (opcode 0x23): set it when the client has declared support (Client Supported
    /// Features bit 2). When a notification is about to go and other characteristics' notifications
    /// queued right behind it fit in MTU − 1 with it, they leave as one PDU; a lone notification
    /// still goes as a plain Handle Value Notification. Indications are never combined.
    ///
    /// Cheap to call on every update (a lock and a compare); unknown links are ignored, as a
    /// central may have just disconnected.
    public func setMultipleHandleValueNotifications(_ enabled: Bool, on link: LinkID) {
        state.withLock { state in
            guard let index = state.index(of: link), state.connections[index].multipleNotifications != enabled else { return }
            state.connections[index].multipleNotifications = enabled
        }
    }

    /// Forgets a closed link: queued notifications are dropped (counted), indications queued or
    /// awaiting confirmation are returned and reported in `.indicationsAbandoned`. Unknown links
    /// are ignored (returns an empty list).
    @discardableResult
    public func removeLink(_ link: LinkID) -> [AbandonedIndication] {
        let (abandoned, ready) = state.withLock { state in
            (state.remove(link) ?? [], state.takeReady())
        }
        if !abandoned.isEmpty { emit(.indicationsAbandoned(link: link, abandoned)) }
        deliver(ready)
        return abandoned
    }

    /// Discards queued values of `characteristic` (a value handle) on `link`, or on every link when
    /// nil: the client turned the subscription off, or the characteristic is gone. Values already
    /// handed to the sink, and an indication awaiting confirmation, are not recalled. Discarded
    /// indications are reported in `.indicationsAbandoned`.
    public func purge(characteristic: UInt16, on link: LinkID? = nil, notifications: Bool = true, indications: Bool = true) {
        let (abandoned, ready) = state.withLock { state -> ([(LinkID, [AbandonedIndication])], Readiness?) in
            var abandoned: [(LinkID, [AbandonedIndication])] = []
            for index in state.connections.indices where link == nil || state.connections[index].id == link {
                let discarded = state.connections[index].purge(characteristic, notifications: notifications, indications: indications)
                if !discarded.isEmpty { abandoned.append((state.connections[index].id, discarded)) }
                if state.connections[index].waitingForRoom, state.connections[index].hasReadyRoom { state.stopWaiting(at: index) }
            }
            return (abandoned, state.takeReady())
        }
        for (link, indications) in abandoned { emit(.indicationsAbandoned(link: link, indications)) }
        deliver(ready)
    }

    // MARK: Updates

    /// Queues `value` for `characteristic` on each listed link and sends what the sink accepts.
    ///
    /// All or nothing, as CoreBluetooth's `updateValue` appears to the app: returns `false` when any
    /// listed link lacks room, and then nothing is queued anywhere; `.readyToUpdateSubscribers`
    /// follows when a link that refused has room again (or closed), naming the links that can take
    /// updates now, and the app retries (for all, or for those). With `.latestValue` a queue never
    /// fills for a characteristic already queued, so a stalled central does not block the others;
    /// with FIFO policies the ready event and `linksWithRoom` tell which links to go on with. Values longer than MTU − 3 are truncated per link. Links not
    /// registered (a central that just disconnected) are skipped; list each link once.
    @discardableResult
    public func update(_ value: [UInt8], characteristic: UInt16, policy: UpdatePolicy = .latestValue,
                       to links: [LinkID]) -> Bool {
        // Not generic over Collection on purpose: unspecialised iteration across the module
        // boundary allocates coroutine frames on every call.
        links.withUnsafeBufferPointer { notify in
            update(value, characteristic: characteristic, policy: policy, notify: notify, indicate: UnsafeBufferPointer(start: nil, count: 0))
        }
    }

    /// `update` for one link.
    @discardableResult
    public func update(_ value: [UInt8], characteristic: UInt16, policy: UpdatePolicy = .latestValue,
                       to link: LinkID) -> Bool {
        withUnsafePointer(to: link) {
            update(value, characteristic: characteristic, policy: policy, notify: UnsafeBufferPointer(start: $0, count: 1),
                   indicate: UnsafeBufferPointer(start: nil, count: 0))
        }
    }

    /// One update to notifying links (with `policy`) and indicating links at once, all or nothing
    /// across both: either every listed link has it queued, or none has and `false` comes back.
    @discardableResult
    public func update(_ value: [UInt8], characteristic: UInt16, notifying: [LinkID], policy: UpdatePolicy = .latestValue,
                       indicating: [LinkID]) -> Bool {
        notifying.withUnsafeBufferPointer { notify in
            indicating.withUnsafeBufferPointer { indicate in
                update(value, characteristic: characteristic, policy: policy, notify: notify, indicate: indicate)
            }
        }
    }

    private func update(_ value: [UInt8], characteristic: UInt16, policy: UpdatePolicy,
                        notify: UnsafeBufferPointer<LinkID>, indicate: UnsafeBufferPointer<LinkID>) -> Bool {
        let (admitted, first) = state.withLock { state in
            state.admit(value, characteristic: characteristic, policy: policy, to: notify, indicating: indicate)
                ? (true, state.startPump()) : (false, nil)
        }
        if let first { run(from: first) }
        return admitted
    }

    /// `update` that, instead of returning `false`, waits for room and retries until the value is
    /// queued on every listed link. Throws `CancellationError` (nothing queued) if the task is
    /// cancelled while waiting.
    public func updateWaitingForRoom(_ value: [UInt8], characteristic: UInt16, notifying: [LinkID] = [],
                                     policy: UpdatePolicy = .latestValue, indicating: [LinkID] = []) async throws(CancellationError) {
        while true {
            if Task.isCancelled { throw CancellationError() }
            let waiterID = state.withLock { state in
                state.nextWaiterID += 1
                return state.nextWaiterID
            }
            let admitted = await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                    let outcome: (admitted: Bool, first: Transmission?)? = state.withLock { state in
                        let admitted = notifying.withUnsafeBufferPointer { notify in
                            indicating.withUnsafeBufferPointer { indicate in
                                state.admit(value, characteristic: characteristic, policy: policy, to: notify, indicating: indicate)
                            }
                        }
                        if admitted {
                            return (true, state.startPump())
                        }
                        // Registered under the same lock as the refusal, so a ready signal cannot slip between.
                        if Task.isCancelled { return (false, nil) }
                        state.waiters.append((waiterID, continuation))
                        return nil
                    }
                    guard let outcome else { return }
                    if let first = outcome.first { run(from: first) }
                    continuation.resume(returning: outcome.admitted)
                }
            } onCancel: {
                let cancelled: CheckedContinuation<Bool, Never>? = state.withLock { state in
                    guard let index = state.waiters.firstIndex(where: { $0.id == waiterID }) else { return nil }
                    return state.waiters.remove(at: index).continuation
                }
                cancelled?.resume(returning: false)
            }
            if admitted { return }
        }
    }

    /// Of `links`, those that would take an update of `length` octets of `characteristic` now.
    public func linksWithRoom(among links: [LinkID], characteristic: UInt16, policy: UpdatePolicy = .latestValue,
                              length: Int) -> [LinkID] {
        state.withLock { state in
            links.filter { link in
                guard let index = state.index(of: link) else { return false }
                return state.connections[index].hasRoom(for: length, characteristic: characteristic, policy: policy)
            }
        }
    }

    // MARK: Transport and ATT signals

    /// Sends queued values while the sink accepts them. Call it whenever the sink may have room
    /// again (the ACL adapter's drain observer); the engine calls it itself after updates.
    public func pump() {
        let first = state.withLock { state in
            state.sinkGeneration &+= 1
            return state.startPump()
        }
        if let first { run(from: first) }
    }

    /// The central's Handle Value Confirmation: the outstanding indication is complete and the next
    /// one may go. It may also be for the indication the sink is still taking (a transport that
    /// writes on the sending thread lets a quick central answer before `trySend` returns). Returns
    /// the value handle it confirmed, or nil (changing nothing) when no indication was either.
    @discardableResult
    public func confirmationReceived(on link: LinkID) -> UInt16? {
        let (confirmed, timer, first): (UInt16?, TimerHandle?, Transmission?) = state.withLock { state in
            guard let index = state.index(of: link), let confirmed = state.connections[index].confirm() else { return (nil, nil, nil) }
            let timer = state.connections[index].indicationTimer.take()
            return (confirmed, timer, state.startPump())
        }
        timer?.cancel()
        guard let confirmed else { return nil }
        emit(.indicationConfirmed(link: link, characteristic: confirmed))
        if let first { run(from: first) }
        return confirmed
    }

    // MARK: Statistics

    public func statistics() -> NotificationStatistics {
        var snapshot = NotificationStatistics()
        let links = state.withLock { state in
            snapshot.characteristics = state.retiredCharacteristics
            snapshot.totals = state.retiredTotals
            for connection in state.connections {
                var perCharacteristic: [UInt16: NotificationStatistics.Counters] = [:]
                for queueState in connection.characteristicStates {
                    perCharacteristic[queueState.characteristic] = queueState.counters
                    snapshot.characteristics[queueState.characteristic, default: NotificationStatistics.Counters()].absorb(queueState.counters)
                }
                snapshot.totals.absorb(connection.counters)
                snapshot.connections[connection.id] = NotificationStatistics.Connection(
                    link: connection.id, handle: connection.link.handle, mtu: connection.mtu, counters: connection.counters,
                    characteristics: perCharacteristic, queuedEntries: connection.entries,
                    queuedBytes: connection.queuedBytes, indicationOutstanding: connection.outstanding != nil,
                    packetsInFlight: 0, multipleNotificationsEnabled: connection.multipleNotifications)
            }
            return state.connections.map(\.link)
        }
        // Asked outside the lock: the sink may take its own.
        for link in links {
            snapshot.connections[link.id]?.packetsInFlight = sink.packetsInFlight(on: link)
        }
        return snapshot
    }

    // MARK: Pump

    /// The pump loop, run by the thread that claimed it: one lock per value (finish + pick next).
    private func run(from first: Transmission) {
        var next: Transmission? = first
        var ready: Readiness? = nil
        while let transmission = next {
            let accepted = sink.trySend(transmission.pdu(headroom: headroom), on: transmission.link)
            var sentIndication: UInt64? = nil
            next = state.withLock { state in
                sentIndication = state.finish(transmission, accepted: accepted)
                let following = state.nextTransmission()
                if following == nil { ready = state.takeReady() }
                return following
            }
            if let sequence = sentIndication { startTransactionTimer(transmission.link, sequence: sequence) }
        }
        deliver(ready)
    }

    /// Arms the ATT transaction timer for the indication just handed to the sink (outside the lock;
    /// a confirmation that raced ahead finds no timer, and this one is then dropped).
    private func startTransactionTimer(_ link: Link, sequence: UInt64) {
        let timer = clock.schedule(after: indicationTimeout) { [weak self] in self?.transactionTimedOut(link, sequence: sequence) }
        let stale = state.withLock { state -> Bool in
            guard let index = state.index(of: link.id), state.connections[index].outstanding != nil,
                  state.connections[index].indicationSequence == sequence else { return true }
            state.connections[index].indicationTimer = timer
            return false
        }
        if stale { timer.cancel() }
    }

    private func transactionTimedOut(_ link: Link, sequence: UInt64) {
        let expired = state.withLock { state -> Bool in
            guard let index = state.index(of: link.id), state.connections[index].outstanding != nil,
                  state.connections[index].indicationSequence == sequence else { return false }
            state.connections[index].indicationTimer = nil
            return true
        }
        if expired { emit(.indicationTimedOut(link)) }
    }

    private func deliver(_ ready: Readiness?) {
        guard let ready else { return }
        emit(.readyToUpdateSubscribers(ready.links))
        for waiter in ready.waiters { waiter.resume(returning: false) }
    }

    private func emit(_ event: NotificationEvent) {
        onEvent(event)
        eventContinuation.yield(event)
    }
}

// MARK: - The engine's state, under its one lock

/// The ready signal owed: the links that can take updates now and the async updaters to wake.
typealias Readiness = (links: [LinkID], waiters: [CheckedContinuation<Bool, Never>])

/// Everything the engine's mutex protects.
struct EngineState {
    var connections: [ConnectionQueue] = []
    /// `connections[i].id`, searched linearly: a handful of links per engine, and comparing a few
    /// integers costs less than hashing one on every update.
    private var linkIDs: [LinkID] = []
    /// Round-robin position in `connections`: each turn sends one value of one connection.
    var cursor = 0
    /// A thread is running the pump loop; others only leave work for it.
    var pumping = false
    /// Bumped each time the sink may have room again; a refusal is remembered per generation.
    var sinkGeneration: UInt64 = 0
    /// A link that refused an update has room again, or is gone: the ready signal is owed.
    var readyDue = false
    var waiters: [(id: UInt64, continuation: CheckedContinuation<Bool, Never>)] = []
    var nextWaiterID: UInt64 = 0
    /// Counters of removed connections, kept for the totals.
    var retiredCharacteristics: [UInt16: NotificationStatistics.Counters] = [:]
    var retiredTotals = NotificationStatistics.Counters()

    /// All-or-nothing across both target lists: queues the value on every listed link (unknown links
    /// are skipped, a central may have just disconnected) or, when any of them lacks room, on none.
    mutating func admit(_ value: [UInt8], characteristic: UInt16, policy: UpdatePolicy,
                        to targets: UnsafeBufferPointer<LinkID>,
                        indicating indicated: UnsafeBufferPointer<LinkID>) -> Bool {
        var refused = false
        refuse(value, characteristic: characteristic, policy: policy, targets: targets, refused: &refused)
        refuse(value, characteristic: characteristic, policy: .indication, targets: indicated, refused: &refused)
        if refused { return false }
        apply(value, characteristic: characteristic, policy: policy, targets: targets)
        apply(value, characteristic: characteristic, policy: .indication, targets: indicated)
        return true
    }

    private mutating func refuse(_ value: [UInt8], characteristic: UInt16, policy: UpdatePolicy,
                                 targets: UnsafeBufferPointer<LinkID>, refused: inout Bool) {
        for link in targets {
            guard let index = index(of: link) else { continue }
            if case .noRoom = connections[index].admission(of: value, characteristic: characteristic, policy: policy) {
                refused = true
                connections[index].recordRejection(characteristic: characteristic)
                connections[index].waitingForRoom = true
            }
        }
    }

    private mutating func apply(_ value: [UInt8], characteristic: UInt16, policy: UpdatePolicy,
                                targets: UnsafeBufferPointer<LinkID>) {
        for link in targets {
            guard let index = index(of: link) else { continue }
            let admission = connections[index].admission(of: value, characteristic: characteristic, policy: policy)
            if !connections[index].apply(admission, value: value, characteristic: characteristic) {
                // Only reachable when a merge hook is not deterministic or a link is listed twice.
                connections[index].recordRejection(characteristic: characteristic)
            }
        }
    }

    /// Claims the pump if nobody runs it and returns the first value to send.
    mutating func startPump() -> Transmission? {
        guard !pumping else { return nil }
        pumping = true
        return nextTransmission()
    }

    /// Next value round-robin across connections; releases the pump when there is none.
    mutating func nextTransmission() -> Transmission? {
        let count = connections.count
        var examined = 0
        while examined < count {
            if cursor >= count { cursor = 0 }
            let index = cursor
            cursor += 1
            examined += 1
            if let transmission = connections[index].takeTransmission(generation: sinkGeneration) {
                return transmission
            }
        }
        pumping = false
        return nil
    }

    /// Books the sink's answer; returns the sequence number of an indication it took (its ATT
    /// transaction timer starts now).
    mutating func finish(_ transmission: Transmission, accepted: Bool) -> UInt64? {
        // The link may have been removed while the sink had the value.
        guard let index = index(of: transmission.link.id) else { return nil }
        connections[index].finish(transmission, accepted: accepted)
        if accepted, connections[index].waitingForRoom, connections[index].hasReadyRoom {
            stopWaiting(at: index)
        }
        // An indication confirmed while the sink had it is not outstanding: no timer.
        return accepted && transmission.isIndication && connections[index].outstanding != nil
            ? connections[index].indicationSequence : nil
    }

    mutating func stopWaiting(at index: Int) {
        connections[index].waitingForRoom = false
        readyDue = true
    }

    /// When the ready signal is owed: the links that can be updated now (none of them waiting for
    /// room) and the async updaters to wake.
    mutating func takeReady() -> Readiness? {
        guard readyDue else { return nil }
        readyDue = false
        let woken = waiters.map(\.continuation)
        waiters.removeAll()
        return (connections.filter { !$0.waitingForRoom }.map(\.id), woken)
    }

    func index(of link: LinkID) -> Int? {
        linkIDs.firstIndex(of: link)
    }

    /// Adds a link's queue; false when the link has one already.
    mutating func add(_ queue: ConnectionQueue) -> Bool {
        guard index(of: queue.id) == nil else { return false }
        connections.append(queue)
        linkIDs.append(queue.id)
        return true
    }

    mutating func remove(_ link: LinkID) -> [AbandonedIndication]? {
        guard let index = index(of: link) else { return nil }
        // The refusal it caused is over: whoever waited may retry.
        if connections[index].waitingForRoom { stopWaiting(at: index) }
        let abandoned = connections[index].close()
        retiredTotals.absorb(connections[index].counters)
        for state in connections[index].characteristicStates {
            retiredCharacteristics[state.characteristic, default: NotificationStatistics.Counters()].absorb(state.counters)
        }
        let last = connections.count - 1
        if index != last {
            connections.swapAt(index, last)
            linkIDs.swapAt(index, last)
        }
        connections.removeLast()
        linkIDs.removeLast()
        if cursor > connections.count { cursor = 0 }
        return abandoned
    }
}
