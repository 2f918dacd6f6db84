import Synchronization

/// A clock that moves only when told to, for tests: a 30 s ATT timeout, a command timeout or a
/// 10 s request deadline runs in no real time and at an exact, repeatable moment.
///
/// `advance(by:)` runs every timer that falls due, in deadline order, on the caller's thread, with
/// `now` set to each timer's deadline while it runs. `waitForTimers(atLeast:)` is the barrier a
/// test uses before advancing: it returns once the code under test has armed its timers.
public final class ManualClock: HostClock, Sendable {
    private struct State {
        var now: MonotonicInstant
        var heap = TimerHeap()
        var pending: [TimerHandle] = []
        var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
        var deadlineWaiters: [(deadline: MonotonicInstant, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state: Mutex<State>

    public init(start: MonotonicInstant = MonotonicInstant(nanoseconds: 1_000_000_000)) {
        state = Mutex(State(now: start))
    }

    public var now: MonotonicInstant { state.withLock { $0.now } }

    @discardableResult
    public func schedule(at deadline: MonotonicInstant, _ action: @escaping @Sendable () -> Void) -> TimerHandle {
        let timer = TimerHandle(deadline: deadline, action: action) { [weak self] in
            let woken = self?.state.withLock { state -> [CheckedContinuation<Void, Never>] in
                state.heap.noteCancelled()
                state.pending.removeAll { !$0.isPending }
                return Self.takeSatisfiedDeadlineWaiters(&state)
            }
            woken?.forEach { $0.resume() }
        }
        let woken = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.heap.insert(timer)
            state.pending.append(timer)
            return Self.takeSatisfiedWaiters(&state) + Self.takeSatisfiedDeadlineWaiters(&state)
        }
        woken.forEach { $0.resume() }
        return timer
    }

    /// Timers armed and neither fired nor cancelled.
    public var pendingTimers: Int { state.withLock { state in state.pending.filter(\.isPending).count } }

    /// The earliest pending deadline.
    public var nextDeadline: MonotonicInstant? { state.withLock { $0.heap.earliestDeadline() } }

    /// Moves time forward by `duration`, firing what falls due on the way.
    public func advance(by duration: Duration) {
        advance(to: now + duration)
    }

    /// Moves time to `target` (never backwards), firing due timers in order; a timer scheduled by
    /// an action that falls due before `target` fires too.
    public func advance(to target: MonotonicInstant) {
        while true {
            let timer = state.withLock { state -> TimerHandle? in
                guard let next = state.heap.earliestDeadline(), next <= target else { return nil }
                state.now = max(state.now, next)
                let due = state.heap.popDue(at: next)
                // popDue returns every timer due at `next`; put all but the first back in order.
                guard let first = due.first else { return nil }
                for later in due.dropFirst() { state.heap.insert(later) }
                state.pending.removeAll { $0 === first }
                return first
            }
            guard let timer else { break }
            timer.fire()
        }
        state.withLock { $0.now = max($0.now, target) }
    }

    /// Suspends until at least `count` timers are pending (armed, not fired, not cancelled).
    public func waitForTimers(atLeast count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                if state.pending.filter(\.isPending).count >= count { return true }
                state.waiters.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// Suspends until the earliest pending timer is due at `deadline`: the code under test armed the
    /// timer the test means to fire, and nothing earlier (a command's own timeout) is still pending,
    /// so `advance(to: deadline)` fires that timer and no other.
    public func waitUntilNextDeadline(is deadline: MonotonicInstant) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                if state.heap.earliestDeadline() == deadline { return true }
                state.deadlineWaiters.append((deadline, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    private static func takeSatisfiedDeadlineWaiters(_ state: inout State) -> [CheckedContinuation<Void, Never>] {
        guard !state.deadlineWaiters.isEmpty, let earliest = state.heap.earliestDeadline() else { return [] }
        var woken: [CheckedContinuation<Void, Never>] = []
        state.deadlineWaiters.removeAll { waiter in
            guard waiter.deadline == earliest else { return false }
            woken.append(waiter.continuation)
            return true
        }
        return woken
    }

    private static func takeSatisfiedWaiters(_ state: inout State) -> [CheckedContinuation<Void, Never>] {
        let live = state.pending.filter(\.isPending).count
        var woken: [CheckedContinuation<Void, Never>] = []
        state.waiters.removeAll { waiter in
            guard waiter.count <= live else { return false }
            woken.append(waiter.continuation)
            return true
        }
        return woken
    }
}
