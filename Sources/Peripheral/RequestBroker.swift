import ATT
import BLECore
import GATT
import GATTNotify
import GATTServer
import Logging
import Synchronization

/// Turns the GATT server's delegate calls into application events and waits for the application's
/// single answer, failing the request with Unlikely Error when no answer comes before the deadline
/// so a central is never left waiting.
///
/// Calling context: delegate methods come from the GATT server's per-connection tasks; `respond`
/// from any thread. State is behind a mutex; continuations are resumed outside it.
final class RequestBroker: GATTServerDelegate, Sendable {
    enum Pending {
        case read(central: UInt16, CheckedContinuation<Result<[UInt8], ATTErrorCode>, Never>)
        case write(central: UInt16, CheckedContinuation<Result<Void, ATTErrorCode>, Never>)
    }

    enum Outcome { case answered, expired }

    struct State {
        var nextID: UInt64 = 0
        var pending: [UInt64: Pending] = [:]
        /// Recently finished requests, so a second answer is reported precisely (bounded).
        var finished: [UInt64: Outcome] = [:]
        var finishedOrder: [UInt64] = []
        var centrals: [UInt16: Central] = [:]
        var security: [UInt16: LinkSecurity] = [:]
        var engine: NotificationEngine? = nil
        var multipleNotificationSupport: (@Sendable (UInt16) -> Bool)? = nil
    }

    private let state = Mutex(State())
    private let emit: @Sendable (PeripheralEvent) -> Void
    private let requestTimeout: Duration
    private let logger: Logger
    let indicationWatchdog: IndicationWatchdog
    let subscribers = SubscriberTable()

    init(requestTimeout: Duration, logger: Logger, indicationWatchdog: IndicationWatchdog,
         emit: @escaping @Sendable (PeripheralEvent) -> Void) {
        self.requestTimeout = requestTimeout
        self.logger = logger
        self.indicationWatchdog = indicationWatchdog
        self.emit = emit
    }

    func attach(_ engine: NotificationEngine, multipleNotificationSupport: @escaping @Sendable (UInt16) -> Bool) {
        state.withLock {
            $0.engine = engine
            $0.multipleNotificationSupport = multipleNotificationSupport
        }
    }

    func centralConnected(_ central: Central) {
        state.withLock {
            $0.centrals[central.handle] = central
            $0.security[central.handle] = LinkSecurity.none
        }
    }

    func central(_ handle: UInt16) -> Central? { state.withLock { $0.centrals[handle] } }

    func setSecurity(_ security: LinkSecurity, on handle: UInt16) {
        state.withLock { $0.security[handle] = security }
    }

    /// Fails the central's outstanding requests; the GATT server has dropped the connection anyway.
    func centralDisconnected(_ handle: UInt16) {
        subscribers.remove(handle)
        let abandoned: [Pending] = state.withLock { state in
            state.centrals.removeValue(forKey: handle)
            state.security.removeValue(forKey: handle)
            var result: [Pending] = []
            for (id, pending) in state.pending {
                switch pending {
                case let .read(central, _) where central == handle, let .write(central, _) where central == handle:
                    state.pending.removeValue(forKey: id)
                    result.append(pending)
                default: break
                }
            }
            return result
        }
        for pending in abandoned { Self.fail(pending, with: .unlikelyError) }
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
        let result: Result<Pending, RespondError> = state.withLock { state in
            if let pending = state.pending.removeValue(forKey: id.value) {
                state.remember(id.value, .answered)
                return .success(pending)
            }
            switch state.finished[id.value] {
            case .answered: return .failure(.alreadyAnswered(id))
            case .expired: return .failure(.expired(id))
            case nil: return .failure(.unknownRequest(id))
            }
        }
        return try result.get()
    }

    private static func fail(_ pending: Pending, with error: ATTErrorCode) {
        switch pending {
        case let .read(_, continuation): continuation.resume(returning: .failure(error))
        case let .write(_, continuation): continuation.resume(returning: .failure(error))
        }
    }

    private func expire(_ id: UInt64) {
        let pending: Pending? = state.withLock { state in
            guard let pending = state.pending.removeValue(forKey: id) else { return nil }
            state.remember(id, .expired)
            return pending
        }
        guard let pending else { return }
        logger.error("request #\(id) was not answered within \(requestTimeout); the central gets Unlikely Error")
        Self.fail(pending, with: .unlikelyError)
    }

    private func scheduleDeadline(_ id: UInt64) {
        let timeout = requestTimeout
        Task { [weak self] in
            try? await Task.sleep(for: timeout)
            self?.expire(id)
        }
    }

    // MARK: GATTServerDelegate

    func read(_ request: GATTReadRequest) async -> Result<[UInt8], ATTErrorCode> {
        guard let central = central(request.connection) else { return .failure(.unlikelyError) }
        return await withCheckedContinuation { continuation in
            let id = state.withLock { state -> UInt64 in
                state.nextID += 1
                state.pending[state.nextID] = .read(central: request.connection, continuation)
                return state.nextID
            }
            scheduleDeadline(id)
            emit(.readRequest(ReadRequest(id: ATTRequestID(value: id), central: central,
                                          characteristic: request.characteristic, descriptor: request.descriptor)))
        }
    }

    func write(_ items: [GATTWriteItem], connection: UInt16, kind: GATTWriteKind) async -> Result<Void, ATTErrorCode> {
        guard let central = central(connection) else { return .failure(.unlikelyError) }
        let requests = items.map { WriteRequest(characteristic: $0.characteristic, descriptor: $0.descriptor, value: $0.value) }
        if kind == .command || kind == .signedCommand {
            // Nothing goes back on the air; the application is told and owes no answer.
            let id = state.withLock { state -> UInt64 in
                state.nextID += 1
                state.remember(state.nextID, .answered)
                return state.nextID
            }
            emit(.writeRequests(WriteBatch(id: ATTRequestID(value: id), central: central, requests: requests, kind: kind)))
            return .success(())
        }
        return await withCheckedContinuation { continuation in
            let id = state.withLock { state -> UInt64 in
                state.nextID += 1
                state.pending[state.nextID] = .write(central: connection, continuation)
                return state.nextID
            }
            scheduleDeadline(id)
            emit(.writeRequests(WriteBatch(id: ATTRequestID(value: id), central: central, requests: requests, kind: kind)))
        }
    }

    func subscriptionChanged(connection: UInt16, characteristic: CharacteristicID, configuration: ClientConfiguration) {
        subscribers.update(connection, characteristic: characteristic, configuration: configuration)
        // Clients declare Client Supported Features before subscribing (robust caching does it first
        // thing), so the flag is taken here rather than on every update; a client that declares it
        // later gets single notifications until its next CCCD write, which is always valid.
        let (engine, supports) = state.withLock { ($0.engine, $0.multipleNotificationSupport) }
        if let engine, let supports {
            engine.setMultipleHandleValueNotifications(supports(connection), on: connection)
        }
        guard let central = central(connection) else { return }
        emit(configuration.isEmpty ? .unsubscribed(central, characteristic) : .subscribed(central, characteristic))
    }

    func security(of connection: UInt16) -> LinkSecurity {
        state.withLock { $0.security[connection] ?? LinkSecurity.none }
    }

    func indicationConfirmed(connection: UInt16) {
        let engine = state.withLock { $0.engine }
        if engine?.confirmationReceived(on: connection) == true {
            indicationWatchdog.confirmed(on: connection)
        } else {
            logger.warning("connection 0x\(String(connection, radix: 16)): confirmation without an outstanding indication")
        }
    }

    func mtuChanged(connection: UInt16, mtu: Int) {
        let engine = state.withLock { $0.engine }
        do { try engine?.updateMTU(mtu, on: connection) } catch {
            logger.warning("connection 0x\(String(connection, radix: 16)): \(error)")
        }
        if let central = central(connection) { emit(.mtuChanged(central, mtu: mtu)) }
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
