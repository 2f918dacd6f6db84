import HCI
import Synchronization

/// The stack's one start, shared by whichever roles ask: the first asking launches it, everyone
/// waiting gets its result, and a waiter that is cancelled stops waiting at once. The start itself
/// is cancelled only when no waiter is left (the last role gave up); a failed or cancelled start
/// may be tried again, a shut-down stack may not.
final class StartGate: Sendable {
    typealias Outcome = Result<ControllerInfo, BLEStackError>

    private enum Phase {
        case idle
        case starting(Task<Void, Never>)
        case started(ControllerInfo)
        case shutDown
    }

    private struct State {
        var phase = Phase.idle
        var waiters: [UInt64: CheckedContinuation<Outcome, Never>] = [:]
        /// Waiters cancelled before they registered (a cancelled task calling start()).
        var cancelledEarly: Set<UInt64> = []
        var nextID: UInt64 = 0
    }

    private let state = Mutex(State())
    private let run: @Sendable () async -> Outcome

    /// `run` brings the stack up; it is called once per attempt.
    init(run: @escaping @Sendable () async -> Outcome) {
        self.run = run
    }

    func start() async -> Outcome {
        let id = state.withLock { state -> UInt64 in
            state.nextID &+= 1
            return state.nextID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Outcome, Never>) in
                register(id, continuation)
            }
        } onCancel: {
            cancel(id)
        }
    }

    private func register(_ id: UInt64, _ continuation: CheckedContinuation<Outcome, Never>) {
        let immediate = state.withLock { state -> Outcome? in
            if state.cancelledEarly.remove(id) != nil { return .failure(.cancelled) }
            switch state.phase {
            case let .started(info): return .success(info)
            case .shutDown: return .failure(.controller(.shutDown))
            case .starting:
                state.waiters[id] = continuation
            case .idle:
                state.waiters[id] = continuation
                state.phase = .starting(Task { [self] in finish(await run()) })
            }
            return nil
        }
        if let immediate { continuation.resume(returning: immediate) }
    }

    private func cancel(_ id: UInt64) {
        let (waiter, abandoned) = state.withLock { state -> (CheckedContinuation<Outcome, Never>?, Task<Void, Never>?) in
            guard let waiter = state.waiters.removeValue(forKey: id) else {
                state.cancelledEarly.insert(id)
                return (nil, nil)
            }
            guard state.waiters.isEmpty, case let .starting(task) = state.phase else { return (waiter, nil) }
            state.phase = .idle
            return (waiter, task)
        }
        abandoned?.cancel()
        waiter?.resume(returning: .failure(.cancelled))
    }

    private func finish(_ outcome: Outcome) {
        let waiters = state.withLock { state -> [CheckedContinuation<Outcome, Never>] in
            // Abandoned (every waiter cancelled) or shut down meanwhile: nobody waits for this attempt.
            guard case .starting = state.phase else { return [] }
            if case let .success(info) = outcome { state.phase = .started(info) } else { state.phase = .idle }
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        waiters.forEach { $0.resume(returning: outcome) }
    }

    /// No start after this; whoever waits is told the stack shut down.
    func shutDown() {
        let (waiters, task) = state.withLock { state -> ([CheckedContinuation<Outcome, Never>], Task<Void, Never>?) in
            var task: Task<Void, Never>?
            if case let .starting(running) = state.phase { task = running }
            state.phase = .shutDown
            defer { state.waiters.removeAll() }
            return (Array(state.waiters.values), task)
        }
        task?.cancel()
        waiters.forEach { $0.resume(returning: .failure(.controller(.shutDown))) }
    }
}
