import Synchronization

/// The host's one timer facility: timeouts (commands, ATT transactions, request deadlines,
/// signaling) and periodic work (sensor polling, an application's updates), all on a monotonic
/// clock. `SystemClock.shared` runs timers on one dedicated thread; tests inject a `ManualClock`
/// and move time themselves, so a 30 s timeout takes no real time.
///
/// Calling context: every method may be called from any thread. Actions run on the clock's own
/// context (the timer thread, or the caller of `ManualClock.advance`), one at a time, and must be
/// short and never block: they resume a continuation, take a lock, queue work.
public protocol HostClock: AnyObject, Sendable {
    /// Now on this clock.
    var now: MonotonicInstant { get }

    /// Runs `action` once, at or soon after `deadline` (at once if it has passed), unless the
    /// returned handle is cancelled first.
    @discardableResult
    func schedule(at deadline: MonotonicInstant, _ action: @escaping @Sendable () -> Void) -> TimerHandle
}

/// One scheduled action. Cancelling is idempotent; after `cancel()` returns the action does not
/// start (it may already be running or finished).
public final class TimerHandle: Sendable {
    enum State { case pending, fired, cancelled }

    let deadline: MonotonicInstant
    let action: @Sendable () -> Void
    private let state = Mutex(State.pending)
    private let onCancel: @Sendable () -> Void

    init(deadline: MonotonicInstant, action: @escaping @Sendable () -> Void, onCancel: @escaping @Sendable () -> Void) {
        self.deadline = deadline
        self.action = action
        self.onCancel = onCancel
    }

    /// `true` when this call prevented the action from running.
    @discardableResult
    public func cancel() -> Bool {
        let cancelled = state.withLock { state -> Bool in
            guard state == .pending else { return false }
            state = .cancelled
            return true
        }
        if cancelled { onCancel() }
        return cancelled
    }

    public var isPending: Bool { state.withLock { $0 == .pending } }

    /// Claims the action for running; `false` when it was cancelled.
    func claim() -> Bool {
        state.withLock { state in
            guard state == .pending else { return false }
            state = .fired
            return true
        }
    }

    /// Runs the action unless it was cancelled.
    func fire() {
        if claim() { action() }
    }
}

extension HostClock {
    @discardableResult
    public func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> TimerHandle {
        schedule(at: now + delay, action)
    }

    /// Suspends until `deadline`; throws `CancellationError` at once when the task is cancelled.
    public func sleep(until deadline: MonotonicInstant) async throws(CancellationError) {
        let slot = Mutex<CheckedContinuation<Bool, Never>?>(nil)
        let handle = Mutex<TimerHandle?>(nil)
        let completed = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                slot.withLock { $0 = continuation }
                if Task.isCancelled {
                    slot.withLock { $0.take() }?.resume(returning: false)
                    return
                }
                let timer = schedule(at: deadline) { slot.withLock { $0.take() }?.resume(returning: true) }
                handle.withLock { $0 = timer }
                // Cancelled between the check above and storing the handle: do not leave it armed.
                if Task.isCancelled { timer.cancel() }
            }
        } onCancel: {
            handle.withLock { $0 }?.cancel()
            slot.withLock { $0.take() }?.resume(returning: false)
        }
        if !completed { throw CancellationError() }
    }

    public func sleep(for duration: Duration) async throws(CancellationError) {
        try await sleep(until: now + duration)
    }

    /// Runs `action` every `period`, first at `now + period` (or `firstDeadline`), until the
    /// returned timer is cancelled. Deadlines advance by whole periods from the first one, so the
    /// schedule never drifts; ticks that could not run in time are not bunched up: `action` runs
    /// once and learns how many ticks passed unrun (`skippedTicks`), to skip or catch up on them.
    ///
    /// With a `leeway`, each wake-up comes that much after its deadline (the first at
    /// `firstDeadline + leeway`), and every tick due by then is handled in that one wake-up:
    /// `skippedTicks` then counts the ticks deferred as well as any missed. A 2000 Hz timer with
    /// 5 ms of leeway wakes every 5.5 ms, about 180 times a second. Worth it where nothing
    /// downstream is finer than the leeway: a BLE controller sends notifications only at
    /// connection events, 7.5 ms apart or more.
    public func repeating(every period: Duration, leeway: Duration = .zero, firstAt firstDeadline: MonotonicInstant? = nil,
                          _ action: @escaping @Sendable (_ skippedTicks: Int64) -> Void) -> RepeatingTimer {
        RepeatingTimer(clock: self, period: period, leeway: leeway, first: firstDeadline ?? now + period, action: action)
    }
}

/// A periodic action on a `HostClock`; see `HostClock.repeating(every:leeway:firstAt:_:)`.
public final class RepeatingTimer: Sendable {
    private struct State {
        var next: MonotonicInstant
        var current: TimerHandle?
        var cancelled = false
    }

    private let clock: any HostClock
    private let periodNanoseconds: Int64
    private let leeway: Duration
    private let action: @Sendable (Int64) -> Void
    private let state: Mutex<State>

    init(clock: any HostClock, period: Duration, leeway: Duration, first: MonotonicInstant, action: @escaping @Sendable (Int64) -> Void) {
        self.clock = clock
        self.periodNanoseconds = max(1, period.saturatingNanoseconds)
        self.leeway = max(.zero, leeway)
        self.action = action
        self.state = Mutex(State(next: first))
        arm()
    }

    public func cancel() {
        let current = state.withLock { state -> TimerHandle? in
            state.cancelled = true
            return state.current.take()
        }
        current?.cancel()
    }

    private func arm() {
        state.withLock { state in
            guard !state.cancelled else { return }
            let deadline = state.next
            // Woken at the end of the leeway: every tick due by then runs in this wake-up.
            state.current = clock.schedule(at: deadline + leeway) { [weak self] in self?.tick(deadline) }
        }
    }

    private func tick(_ deadline: MonotonicInstant) {
        let now = clock.now
        // Whole periods elapsed past this deadline are ticks that can no longer run on time.
        let late = max(0, now.nanoseconds &- deadline.nanoseconds)
        let skipped = late / periodNanoseconds
        let proceed = state.withLock { state -> Bool in
            guard !state.cancelled else { return false }
            state.next = MonotonicInstant(nanoseconds: deadline.nanoseconds &+ (skipped + 1) &* periodNanoseconds)
            return true
        }
        guard proceed else { return }
        action(skipped)
        arm()
    }
}

extension Optional {
    /// Moves the value out, leaving `nil`.
    @inlinable
    public mutating func take() -> Wrapped? {
        defer { self = nil }
        return self
    }
}
