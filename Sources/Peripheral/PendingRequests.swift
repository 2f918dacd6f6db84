import ATT
import BLECore
import HCI
import Logging
import Synchronization

/// The reads and write batches handed to the application and not answered yet. Each is answered
/// exactly once: by the application, or with Unlikely Error when its deadline passes or its
/// central disconnects, so a central is never left waiting.
///
/// Calling context: registration from the GATT server's per-link tasks, `respond` from any thread.
/// State is behind a mutex; continuations are resumed outside it.
final class PendingRequests: Sendable {
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
    }

    private let state = Mutex(State())
    private let timeout: Duration
    private let clock: any HostClock
    private let logger: Logger

    init(timeout: Duration, clock: any HostClock, logger: Logger) {
        self.timeout = timeout
        self.clock = clock
        self.logger = logger
    }

    // MARK: Waiting for answers

    /// Registers a read on `link`, hands its id to `announce` (the application's event) and
    /// returns the answer.
    func read(on link: LinkID, announce: (ATTRequestID) -> Void) async -> Result<[UInt8], ATTErrorCode> {
        await withCheckedContinuation { continuation in
            announce(ATTRequestID(value: register(.read(link: link, continuation))))
        }
    }

    /// `read(on:announce:)` for a write batch that needs a response.
    func write(on link: LinkID, announce: (ATTRequestID) -> Void) async -> Result<Void, ATTErrorCode> {
        await withCheckedContinuation { continuation in
            announce(ATTRequestID(value: register(.write(link: link, continuation))))
        }
    }

    /// A fresh id that counts as answered already: a write command's, which owes no answer, so
    /// answering it is reported like a second answer.
    func answeredID() -> ATTRequestID {
        state.withLock { state in
            state.nextID += 1
            state.remember(state.nextID, .answered)
            return ATTRequestID(value: state.nextID)
        }
    }

    /// Fails the link's outstanding requests (its central disconnected; the GATT server has
    /// dropped the link anyway).
    func failAll(on link: LinkID) {
        let abandoned: [Waiting] = state.withLock { state in
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
        logger.error("request #\(id) was not answered within \(timeout); the central gets Unlikely Error")
        Self.fail(waiting.pending, with: .unlikelyError)
    }

    /// Registers a request and its deadline under one lock, so an answer never misses the timer.
    private func register(_ pending: Pending) -> UInt64 {
        state.withLock { state in
            state.nextID += 1
            let id = state.nextID
            let deadline = clock.schedule(after: timeout) { [weak self] in self?.expire(id) }
            state.pending[id] = Waiting(pending: pending, deadline: deadline)
            return id
        }
    }
}

extension PendingRequests.State {
    mutating func remember(_ id: UInt64, _ outcome: PendingRequests.Outcome) {
        finished[id] = outcome
        finishedOrder.append(id)
        if finishedOrder.count > 1024 {
            finished.removeValue(forKey: finishedOrder.removeFirst())
        }
    }
}
