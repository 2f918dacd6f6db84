import ATT
import BLECore
import GATT
import GATTNotify
import GATTServer
import HCI
import Logging
import Synchronization

/// Turns the GATT server's delegate calls into application events and waits for the application's
/// single answer, failing the request with Unlikely Error when no answer comes before the deadline
/// so a central is never left waiting.
///
/// Calling context: delegate methods come from the GATT server's per-link tasks (confirmations
/// from the host's inbound context); `respond` from any thread. State is behind a mutex;
/// continuations are resumed outside it.
final class RequestBroker: GATTServerDelegate, Sendable {
    enum Pending {
        case read(link: LinkID, CheckedContinuation<Result<[UInt8], ATTErrorCode>, Never>)
        case write(link: LinkID, CheckedContinuation<Result<Void, ATTErrorCode>, Never>)

        var link: LinkID {
            switch self {
            case let .read(link, _), let .write(link, _): return link
            }
        }
    }

    struct Waiting {
        let pending: Pending
        let deadline: TimerHandle?
    }

    enum Outcome { case answered, expired }

    struct State {
        var nextID: UInt64 = 0
        var pending: [UInt64: Waiting] = [:]
        /// Recently finished requests, so a second answer is reported precisely (bounded).
        var finished: [UInt64: Outcome] = [:]
        var finishedOrder: [UInt64] = []
        var centrals: [LinkID: Central] = [:]
        var engine: NotificationEngine? = nil
        var multipleNotificationSupport: (@Sendable (Link) -> Bool)? = nil
        var clientStateObserver: (@Sendable (Link, ClientStateChange) -> Void)? = nil
    }

    /// What changed in a client's GATT state (for keeping a bonded client's across connections).
    enum ClientStateChange: Sendable {
        case subscription(CharacteristicID, ClientConfiguration)
        /// Client Supported Features or change-awareness.
        case features
    }

    private let state = Mutex(State())
    private let emit: @Sendable (PeripheralEvent) -> Void
    private let requestTimeout: Duration
    private let clock: any HostClock
    private let logger: Logger
    let subscribers: SubscriberTable
    /// Write commands handed to the application and not yet taken from its event stream.
    let commandBudget: CommandBudget

    init(requestTimeout: Duration, clock: any HostClock, maxUndeliveredCommands: Int, keepsLastValues: Bool = false, logger: Logger,
         emit: @escaping @Sendable (PeripheralEvent) -> Void) {
        self.subscribers = SubscriberTable(keepsLastValues: keepsLastValues)
        self.requestTimeout = requestTimeout
        self.clock = clock
        self.logger = logger
        self.commandBudget = CommandBudget(limit: maxUndeliveredCommands)
        self.emit = emit
    }

    func attach(_ engine: NotificationEngine, multipleNotificationSupport: @escaping @Sendable (Link) -> Bool) {
        state.withLock {
            $0.engine = engine
            $0.multipleNotificationSupport = multipleNotificationSupport
        }
    }

    /// Called synchronously after each change of a client's GATT state, restored ones included.
    func observeClientState(_ observer: @escaping @Sendable (Link, ClientStateChange) -> Void) {
        state.withLock { $0.clientStateObserver = observer }
    }

    /// Registers the central of a new link; `false` if it was already known.
    @discardableResult
    func centralConnected(_ central: Central) -> Bool {
        state.withLock { state in
            guard state.centrals[central.link.id] == nil else { return false }
            state.centrals[central.link.id] = central
            return true
        }
    }

    func central(_ link: LinkID) -> Central? { state.withLock { $0.centrals[link] } }

    func centrals(_ links: [LinkID]) -> [Central] {
        state.withLock { state in links.compactMap { state.centrals[$0] } }
    }

    /// Forgets the central and fails its outstanding requests; the GATT server has dropped the
    /// link anyway. Its subscriptions are the caller's to remove, earlier (see `linkChanged`).
    func centralDisconnected(_ link: LinkID) {
        let abandoned: [Waiting] = state.withLock { state in
            state.centrals.removeValue(forKey: link)
            let ids = state.pending.filter { $0.value.pending.link == link }.keys
            return ids.compactMap { state.pending.removeValue(forKey: $0) }
        }
        for waiting in abandoned {
            waiting.deadline?.cancel()
            Self.fail(waiting.pending, with: .unlikelyError)
        }
    }

    // MARK: Answers from the application

    func respond(to id: ATTRequestID, read result: Result<[UInt8], ATTErrorCode>) throws(RespondError) {
        switch try take(id) {
        case let .read(_, continuation): continuation.resume(returning: result)
        case let .write(_, continuation):
            // A read answer for a write batch: answer the central sensibly and tell the application.
            continuation.resume(returning: .failure(.unlikelyError))
            logger.error("request \(id) is a write batch but was answered as a read")
        }
    }

    func respond(to id: ATTRequestID, write result: Result<Void, ATTErrorCode>) throws(RespondError) {
        switch try take(id) {
        case let .write(_, continuation): continuation.resume(returning: result)
        case let .read(_, continuation):
            continuation.resume(returning: .failure(.unlikelyError))
            logger.error("request \(id) is a read but was answered as a write batch")
        }
    }

    private func take(_ id: ATTRequestID) throws(RespondError) -> Pending {
        let result: Result<Waiting, RespondError> = state.withLock { state in
            if let waiting = state.pending.removeValue(forKey: id.value) {
                state.remember(id.value, .answered)
                return .success(waiting)
            }
            switch state.finished[id.value] {
            case .answered: return .failure(.alreadyAnswered(id))
            case .expired: return .failure(.expired(id))
            case nil: return .failure(.unknownRequest(id))
            }
        }
        let waiting = try result.get()
        // Answered: the deadline timer has nothing left to do.
        waiting.deadline?.cancel()
        return waiting.pending
    }

    private static func fail(_ pending: Pending, with error: ATTErrorCode) {
        switch pending {
        case let .read(_, continuation): continuation.resume(returning: .failure(error))
        case let .write(_, continuation): continuation.resume(returning: .failure(error))
        }
    }

    private func expire(_ id: UInt64) {
        let waiting: Waiting? = state.withLock { state in
            guard let waiting = state.pending.removeValue(forKey: id) else { return nil }
            state.remember(id, .expired)
            return waiting
        }
        guard let waiting else { return }
        logger.error("request #\(id) was not answered within \(requestTimeout); the central gets Unlikely Error")
        Self.fail(waiting.pending, with: .unlikelyError)
    }

    /// Registers a request and its deadline under one lock, so an answer never misses the timer.
    private func register(_ pending: Pending) -> UInt64 {
        state.withLock { state in
            state.nextID += 1
            let id = state.nextID
            let deadline = clock.schedule(after: requestTimeout) { [weak self] in self?.expire(id) }
            state.pending[id] = Waiting(pending: pending, deadline: deadline)
            return id
        }
    }

    // MARK: GATTServerDelegate

    func read(_ request: GATTReadRequest) async -> Result<[UInt8], ATTErrorCode> {
        guard let central = central(request.link.id) else { return .failure(.unlikelyError) }
        return await withCheckedContinuation { continuation in
            let id = register(.read(link: request.link.id, continuation))
            emit(.readRequest(ReadRequest(id: ATTRequestID(value: id), central: central,
                                          characteristic: request.characteristic, descriptor: request.descriptor)))
        }
    }

    func write(_ items: [GATTWriteItem], link: Link, kind: GATTWriteKind) async -> Result<Void, ATTErrorCode> {
        guard let central = central(link.id) else { return .failure(.unlikelyError) }
        let requests = items.map { WriteRequest(characteristic: $0.characteristic, descriptor: $0.descriptor, value: $0.value) }
        if kind == .command || kind == .signedCommand {
            // Nothing goes back on the air; the application is told and owes no answer. An
            // application that does not read its events cannot make commands pile up without bound.
            guard commandBudget.acquire() else {
                let dropped = commandBudget.noteDropped()
                if dropped == 1 || dropped % 100 == 0 {
                    logger.warning("write commands dropped: \(dropped) so far; the application is not taking its events")
                }
                return .success(())
            }
            let id = state.withLock { state -> UInt64 in
                state.nextID += 1
                state.remember(state.nextID, .answered)
                return state.nextID
            }
            emit(.writeRequests(WriteBatch(id: ATTRequestID(value: id), central: central, requests: requests, kind: kind)))
            return .success(())
        }
        return await withCheckedContinuation { continuation in
            let id = register(.write(link: link.id, continuation))
            emit(.writeRequests(WriteBatch(id: ATTRequestID(value: id), central: central, requests: requests, kind: kind)))
        }
    }

    func subscriptionChanged(link: Link, characteristic: CharacteristicID, configuration: ClientConfiguration) {
        subscribers.update(link.id, characteristic: characteristic, configuration: configuration)
        let (engine, supports) = state.withLock { ($0.engine, $0.multipleNotificationSupport) }
        if let engine {
            // Clients declare Client Supported Features before subscribing (robust caching does it
            // first thing), so the flag is taken here rather than on every update; a client that
            // declares it later gets single notifications until its next CCCD write, which is valid.
            if let supports { engine.setMultipleHandleValueNotifications(supports(link), on: link.id) }
            // Values queued under a mode the client just turned off are not wanted any more.
            if let handle = subscribers.targets(of: characteristic)?.valueHandle, handle != 0 {
                engine.purge(characteristic: handle, on: link.id,
                             notifications: !configuration.contains(.notifications),
                             indications: !configuration.contains(.indications))
            }
        }
        state.withLock { $0.clientStateObserver }?(link, .subscription(characteristic, configuration))
        guard let central = central(link.id) else { return }
        emit(configuration.isEmpty ? .unsubscribed(central, characteristic) : .subscribed(central, characteristic))
    }

    func clientStateChanged(link: Link) {
        state.withLock { $0.clientStateObserver }?(link, .features)
    }

    func indicationConfirmed(link: Link) -> UInt16? {
        let engine = state.withLock { $0.engine }
        guard let confirmed = engine?.confirmationReceived(on: link.id) else {
            logger.warning("\(link.id): confirmation without an outstanding indication")
            return nil
        }
        return confirmed
    }

    /// The notification engine reads the new MTU from the link itself; the application hears of it.
    func mtuChanged(link: Link, mtu: Int) {
        if let central = central(link.id) { emit(.mtuChanged(central, mtu: mtu)) }
    }
}

extension RequestBroker.State {
    mutating func remember(_ id: UInt64, _ outcome: RequestBroker.Outcome) {
        finished[id] = outcome
        finishedOrder.append(id)
        if finishedOrder.count > 1024 {
            finished.removeValue(forKey: finishedOrder.removeFirst())
        }
    }
}

/// Bounds the write commands waiting in the application's event stream: taken when one is handed
/// over, returned when the application takes the event.
final class CommandBudget: Sendable {
    private struct State {
        var inFlight = 0
        // Int64: a flooding central could push a 32-bit Int (armhf) past 2^31 within weeks.
        var dropped: Int64 = 0
    }

    private let state = Mutex(State())
    let limit: Int

    init(limit: Int) { self.limit = max(1, limit) }

    func acquire() -> Bool {
        state.withLock { state in
            guard state.inFlight < limit else { return false }
            state.inFlight += 1
            return true
        }
    }

    func release() {
        state.withLock { $0.inFlight = max(0, $0.inFlight - 1) }
    }

    /// Counts a dropped command; returns the total so far.
    func noteDropped() -> Int64 {
        state.withLock { state in
            state.dropped += 1
            return state.dropped
        }
    }

    var dropped: Int64 { state.withLock { $0.dropped } }
}
