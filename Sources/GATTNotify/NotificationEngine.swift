import Synchronization

/// Backpressure-aware queue between `updateValue(_:for:onSubscribedCentrals:)` and the ACL layer.
///
/// Each connection has a bounded queue (entries and bytes). Notifications coalesce to the latest
/// value or go through a merge hook, so a central that stops acknowledging costs bounded memory;
/// indications are FIFO with one outstanding per connection. Values leave only when the sink
/// accepts them (the ACL adapter accepts only while the controller's credits keep its queue short),
/// one connection per turn so a stalled central does not delay a healthy one.
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
    private let onEvent: @Sendable (NotificationEvent) -> Void
    private let eventContinuation: AsyncStream<NotificationEvent>.Continuation

    /// Events for one consumer; the newest 256 are kept if nobody reads.
    public let events: AsyncStream<NotificationEvent>

    /// - Parameters:
    ///   - sink: receives finished L2CAP PDUs; see `NotificationSink` for its duties.
    ///   - defaultLimits: queue capacity of connections added without their own limits.
    ///   - onEvent: called synchronously, without the lock, on the thread that caused the event;
    ///     the same events are also delivered on `events`.
    public init(sink: any NotificationSink, defaultLimits: QueueLimits = .standard,
                onEvent: @escaping @Sendable (NotificationEvent) -> Void = { _ in }) {
        self.sink = sink
        self.headroom = sink.headroom
        self.defaultLimits = defaultLimits
        self.onEvent = onEvent
        (events, eventContinuation) = AsyncStream.makeStream(of: NotificationEvent.self, bufferingPolicy: .bufferingNewest(256))
    }

    deinit {
        eventContinuation.finish()
    }

    // MARK: Connection lifecycle

    /// Registers a connection when its link comes up (ATT MTU 23 until exchanged).
    public func addConnection(_ handle: UInt16, mtu: Int = 23, limits: QueueLimits? = nil) throws(NotificationEngineError) {
        guard (23...Int(UInt16.max)).contains(mtu) else { throw .invalidMTU(mtu) }
        let limits = limits ?? defaultLimits
        try state.withLock { state throws(NotificationEngineError) in
            guard state.indexByHandle[handle] == nil else { throw .duplicateConnection(handle) }
            state.nextConnectionID += 1
            state.indexByHandle[handle] = state.connections.count
            state.connections.append(ConnectionQueue(handle: handle, id: state.nextConnectionID, mtu: mtu, limits: limits))
        }
    }

    /// Applies a new ATT MTU to values queued from now on (queued ones keep their truncation, as
    /// CoreBluetooth truncates when `updateValue` is called).
    public func updateMTU(_ mtu: Int, on handle: UInt16) throws(NotificationEngineError) {
        guard (23...Int(UInt16.max)).contains(mtu) else { throw .invalidMTU(mtu) }
        try state.withLock { state throws(NotificationEngineError) in
            guard let index = state.indexByHandle[handle] else { throw .unknownConnection(handle) }
            state.connections[index].mtu = mtu
        }
    }

    /// Whether queued notifications on `connection` may leave combined in ATT Multiple Handle Value
    /// Notifications (opcode 0x23): set it when the client has declared support (Client Supported
    /// Features bit 2). When a notification is about to go and other characteristics' notifications
    /// queued right behind it fit in MTU − 1 with it, they leave as one PDU; a lone notification
    /// still goes as a plain Handle Value Notification. Indications are never combined.
    ///
    /// Cheap to call on every update (a lock and a compare); unknown handles are ignored, as a
    /// central may have just disconnected.
    public func setMultipleHandleValueNotifications(_ enabled: Bool, on connection: UInt16) {
        state.withLock { state in
            guard let index = state.indexByHandle[connection], state.connections[index].multipleNotifications != enabled else { return }
            state.connections[index].multipleNotifications = enabled
        }
    }

    /// Forgets a disconnected connection: queued notifications are dropped (counted), indications
    /// queued or awaiting confirmation are returned and reported in `.indicationsAbandoned`. Unknown
    /// handles are ignored (returns an empty list).
    @discardableResult
    public func removeConnection(_ handle: UInt16) -> [AbandonedIndication] {
        let (abandoned, ready) = state.withLock { state in
            (state.remove(handle) ?? [], state.takeReady())
        }
        if !abandoned.isEmpty { emit(.indicationsAbandoned(connection: handle, abandoned)) }
        deliver(ready)
        return abandoned
    }

    // MARK: Updates

    /// Queues `value` for `characteristic` on each listed connection and sends what the sink accepts.
    ///
    /// All or nothing, as CoreBluetooth's `updateValue` appears to the app: returns `false` when any
    /// listed connection lacks room, and then nothing is queued anywhere; a `.readyToUpdateSubscribers`
    /// event follows once those queues have room, and the app retries the same update. (With
    /// `.latestValue` a queue never fills for a characteristic already queued, so a stalled central
    /// does not block the others; with FIFO policies an app that wants centrals independent updates
    /// them one by one.) Values longer than MTU − 3 are truncated per connection. Handles not
    /// registered (a central that just disconnected) are skipped; list each connection once.
    @discardableResult
    public func update(_ value: [UInt8], characteristic: UInt16, policy: UpdatePolicy = .latestValue,
                       to connections: [UInt16]) -> Bool {
        // Not generic over Collection on purpose: unspecialised iteration across the module
        // boundary allocates coroutine frames on every call.
        connections.withUnsafeBufferPointer { update(value, characteristic: characteristic, policy: policy, targets: $0) }
    }

    /// `update` for one connection.
    @discardableResult
    public func update(_ value: [UInt8], characteristic: UInt16, policy: UpdatePolicy = .latestValue,
                       to connection: UInt16) -> Bool {
        withUnsafePointer(to: connection) {
            update(value, characteristic: characteristic, policy: policy, targets: UnsafeBufferPointer(start: $0, count: 1))
        }
    }

    private func update(_ value: [UInt8], characteristic: UInt16, policy: UpdatePolicy,
                        targets: UnsafeBufferPointer<UInt16>) -> Bool {
        let (admitted, first) = state.withLock { state in
            state.admit(value, characteristic: characteristic, policy: policy, to: targets)
                ? (true, state.startPump()) : (false, nil)
        }
        if let first { run(from: first) }
        return admitted
    }

    /// `update` that, instead of returning `false`, waits for room and retries until the value is
    /// queued. Throws `CancellationError` (nothing queued) if the task is cancelled while waiting.
    public func updateWaitingForRoom(_ value: [UInt8], characteristic: UInt16, policy: UpdatePolicy = .latestValue,
                                     to connections: [UInt16]) async throws(CancellationError) {
        while true {
            if Task.isCancelled { throw CancellationError() }
            let waiterID = state.withLock { state in
                state.nextWaiterID += 1
                return state.nextWaiterID
            }
            let admitted = await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                    let outcome: (admitted: Bool, first: Transmission?)? = state.withLock { state in
                        let admitted = connections.withUnsafeBufferPointer {
                            state.admit(value, characteristic: characteristic, policy: policy, to: $0)
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

    // MARK: Transport and ATT signals

    /// Sends queued values while the sink accepts them. Call it whenever the sink may have room
    /// again (the ACL adapter's `queueDrained`); the engine calls it itself after updates.
    public func pump() {
        let first = state.withLock { state in
            state.sinkGeneration &+= 1
            return state.startPump()
        }
        if let first { run(from: first) }
    }

    /// The central's Handle Value Confirmation: the outstanding indication is complete and the next
    /// one may go. Returns `false` (and changes nothing) when no indication was outstanding.
    @discardableResult
    public func confirmationReceived(on connection: UInt16) -> Bool {
        let (confirmed, first): (UInt16?, Transmission?) = state.withLock { state in
            guard let index = state.indexByHandle[connection],
                  let outstanding = state.connections[index].outstanding else { return (nil, nil) }
            state.connections[index].outstanding = nil
            state.connections[index].recordConfirmation(of: outstanding.characteristic)
            return (outstanding.characteristic, state.startPump())
        }
        guard let confirmed else { return false }
        emit(.indicationConfirmed(connection: connection, characteristic: confirmed))
        if let first { run(from: first) }
        return true
    }

    // MARK: Statistics

    public func statistics() -> NotificationStatistics {
        var snapshot = state.withLock { state in
            var snapshot = NotificationStatistics()
            snapshot.characteristics = state.retiredCharacteristics
            snapshot.totals = state.retiredTotals
            for connection in state.connections {
                var perCharacteristic: [UInt16: NotificationStatistics.Counters] = [:]
                for queueState in connection.characteristicStates {
                    perCharacteristic[queueState.characteristic] = queueState.counters
                    snapshot.characteristics[queueState.characteristic, default: NotificationStatistics.Counters()].absorb(queueState.counters)
                }
                snapshot.totals.absorb(connection.counters)
                snapshot.connections[connection.handle] = NotificationStatistics.Connection(
                    handle: connection.handle, mtu: connection.mtu, counters: connection.counters,
                    characteristics: perCharacteristic, queuedEntries: connection.entries,
                    queuedBytes: connection.queuedBytes, indicationOutstanding: connection.outstanding != nil,
                    packetsInFlight: 0, multipleNotificationsEnabled: connection.multipleNotifications)
            }
            return snapshot
        }
        // Asked outside the lock: the sink may take its own.
        for handle in snapshot.connections.keys {
            snapshot.connections[handle]?.packetsInFlight = sink.packetsInFlight(on: handle)
        }
        return snapshot
    }

    // MARK: Pump

    /// The pump loop, run by the thread that claimed it: one lock per value (finish + pick next).
    private func run(from first: Transmission) {
        var next: Transmission? = first
        var ready: (due: Bool, waiters: [CheckedContinuation<Bool, Never>]) = (false, [])
        while let transmission = next {
            let accepted = sink.trySend(transmission.pdu(headroom: headroom), on: transmission.handle)
            next = state.withLock { state in
                state.finish(transmission, accepted: accepted)
                let following = state.nextTransmission()
                if following == nil { ready = state.takeReady() }
                return following
            }
        }
        deliver(ready)
    }

    private func deliver(_ ready: (due: Bool, waiters: [CheckedContinuation<Bool, Never>])) {
        guard ready.due else { return }
        emit(.readyToUpdateSubscribers)
        for waiter in ready.waiters { waiter.resume(returning: false) }
    }

    private func emit(_ event: NotificationEvent) {
        onEvent(event)
        eventContinuation.yield(event)
    }
}
