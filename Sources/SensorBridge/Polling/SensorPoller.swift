import BLECore
import Sensors
import Synchronization

/// What one poll of a sensor produced.
public enum PollOutcome: Sendable, Equatable {
    case measured(Measurement)
    /// The sensor answered but has nothing to measure (no finger, no pulses): a state, not a fault.
    case noSignal(NoSignalCause)
    /// The sensor is conditioning itself (a heater pulse, the cool-down after it): nothing ambient to
    /// publish for now, and the last published values stand. Not a fault.
    case paused(String)
    case failed(SensorError)

    public var isPaused: Bool {
        if case .paused = self { return true }
        return false
    }

    /// A read's error as an outcome: the states that are not faults keep their reason.
    public init(_ error: SensorError) {
        switch error {
        case let .noSignal(_, cause): self = .noSignal(cause)
        case let .conditioning(_, reason): self = .paused(reason)
        default: self = .failed(error)
        }
    }
}

/// Polls one sensor on the host's monotonic clock: reads run on the sensor's own thread at deadlines
/// `origin + n × interval` (missed ones are skipped, never bunched up, so there is no drift), and
/// consecutive failures back off exponentially up to `maximumBackoff` before the grid resumes.
public final class SensorPoller: Sendable {
    private struct State {
        var interval: Duration
        var origin: MonotonicInstant
        var timer: TimerHandle?
        /// Bumped by every reschedule, so a deadline computed before it is not armed after it.
        var generation = 0
        var consecutiveFailures = 0
        var reading = false
        var stopped = false
    }

    public static let maximumBackoff: Duration = .seconds(30)

    public let name: String
    private let source: any SensorSource
    private let clock: any HostClock
    private let thread: SensorThread
    private let deliver: @Sendable (PollOutcome) -> Void
    private let state: Mutex<State>

    /// `deliver` runs on the sensor's thread after each read.
    public init(name: String, source: any SensorSource, interval: Duration, clock: any HostClock,
                deliver: @escaping @Sendable (PollOutcome) -> Void) {
        self.name = name
        self.source = source
        self.clock = clock
        self.deliver = deliver
        self.thread = SensorThread()
        self.state = Mutex(State(interval: interval, origin: clock.now))
    }

    /// First read at `origin` (now by default), then on the grid `origin + n × interval`.
    public func start(origin: MonotonicInstant? = nil) {
        let start = origin ?? clock.now
        let generation = state.withLock { state in
            state.origin = start
            return state.generation
        }
        arm(at: start, generation: generation)
    }

    public var interval: Duration { state.withLock { $0.interval } }

    /// A new period (Measurement Interval write): the grid restarts from now, with a read now.
    public func setInterval(_ interval: Duration) {
        let now = clock.now
        let (previous, generation) = state.withLock { state -> (TimerHandle?, Int) in
            state.interval = interval
            state.origin = now
            state.generation += 1
            return (state.timer.take(), state.generation)
        }
        previous?.cancel()
        arm(at: now, generation: generation)
    }

    /// Stops the timer; a read in progress finishes and is still delivered. The thread ends.
    public func stop() {
        let timer = state.withLock { state -> TimerHandle? in
            state.stopped = true
            return state.timer.take()
        }
        timer?.cancel()
        thread.submit { [source] in source.close() }
        thread.stop()
    }

    private func arm(at deadline: MonotonicInstant, generation: Int) {
        let handle = clock.schedule(at: deadline) { [weak self] in self?.fire() }
        let keep = state.withLock { state -> Bool in
            // Stopped, or rescheduled since the deadline was computed: this timer is not wanted.
            guard !state.stopped, state.generation == generation else { return false }
            // A deadline already due can fire, be read and have its successor armed before this
            // call gets the lock: the pending successor is the current timer, so it stays.
            if let current = state.timer, current.isPending { return true }
            state.timer = handle
            return true
        }
        if !keep { handle.cancel() }
    }

    deinit {
        thread.stop()
    }

    /// On the clock's thread: hand the read to the sensor thread, never read here.
    private func fire() {
        let start = state.withLock { state -> Bool in
            guard !state.stopped, !state.reading else { return false }
            state.reading = true
            return true
        }
        guard start else { return }
        thread.submit { [weak self] in self?.readOnce() }
    }

    private func readOnce() {
        guard !state.withLock({ $0.stopped }) else { return }
        let outcome: PollOutcome
        do {
            outcome = .measured(try source.read())
        } catch let error {
            outcome = PollOutcome(error)
        }
        deliver(outcome)
        scheduleNext(after: outcome)
    }

    private func scheduleNext(after outcome: PollOutcome) {
        let now = clock.now
        let next: (MonotonicInstant, Int)? = state.withLock { state in
            state.reading = false
            guard !state.stopped else { return nil }
            let generation = state.generation
            if case .failed = outcome {
                state.consecutiveFailures += 1
                return (now + Self.backoff(interval: state.interval, failures: state.consecutiveFailures), generation)
            }
            if state.consecutiveFailures > 0 {
                // Recovered: a new grid from now, so the next read is one interval away.
                state.consecutiveFailures = 0
                state.origin = now
            }
            return (Self.nextGridDeadline(origin: state.origin, interval: state.interval, after: now), generation)
        }
        if let (deadline, generation) = next { arm(at: deadline, generation: generation) }
    }

    /// interval, 2×, 4× ... after the 1st, 2nd, 3rd ... consecutive failure, at most `maximumBackoff`
    /// (or the interval itself when that is longer).
    static func backoff(interval: Duration, failures: Int) -> Duration {
        let doublings = min(max(failures - 1, 0), 20)
        let grown = interval * (1 << doublings)
        return min(grown, max(interval, maximumBackoff))
    }

    /// The first `origin + n × interval` strictly after `now`.
    static func nextGridDeadline(origin: MonotonicInstant, interval: Duration, after now: MonotonicInstant) -> MonotonicInstant {
        let period = max(interval.saturatingNanoseconds, 1)
        let elapsed = max((now - origin).saturatingNanoseconds, 0)
        let ticks = elapsed / period + 1
        let (offset, overflow) = ticks.multipliedReportingOverflow(by: period)
        return overflow ? now + interval : origin + .nanoseconds(offset)
    }
}
