import CMonotonicTimer
import Dispatch
import Foundation
import Synchronization

/// CLOCK_MONOTONIC with one dedicated timer thread for the whole process.
///
/// The thread sleeps in `read(2)` on a timerfd armed (absolute, CLOCK_MONOTONIC) for the earliest
/// deadline, so an idle host costs no wake-ups at all and a 2000 Hz periodic timer costs one
/// read per tick. A Task.sleep loop measured about 50 µs of CPU per tick here; see
/// `Benchmarks/timer-bench` for the comparison with a Dispatch timer source.
/// Where timerfd is missing (not Linux) deadlines are waited for with Dispatch instead.
public final class SystemClock: HostClock, @unchecked Sendable {
    // @unchecked: `timerDescriptor` is immutable after init; everything else is behind `state`.
    public static let shared = SystemClock()

    private struct State {
        var heap = TimerHeap()
        /// The deadline the timerfd is armed for, if any.
        var armedFor: MonotonicInstant?
        var threadStarted = false
        /// The timer thread is running actions; it re-arms once when they are done.
        var running = false
    }

    private let state = Mutex(State())
    private let timerDescriptor: Int32

    private init() {
        timerDescriptor = bls_timerfd_create()
    }

    public var now: MonotonicInstant { .systemNow }

    @discardableResult
    public func schedule(at deadline: MonotonicInstant, _ action: @escaping @Sendable () -> Void) -> TimerHandle {
        let timer = TimerHandle(deadline: deadline, action: action) { [weak self] in
            self?.state.withLock { $0.heap.noteCancelled() }
        }
        let startThread = state.withLock { state -> Bool in
            state.heap.insert(timer)
            // Re-arming is a non-blocking system call; only needed when this deadline is the new
            // earliest, and not while the timer thread runs actions (it re-arms after them).
            if !state.running, state.armedFor.map({ deadline < $0 }) ?? true {
                arm(&state, for: deadline)
            }
            defer { state.threadStarted = true }
            return !state.threadStarted
        }
        if startThread { start() }
        return timer
    }

    private func arm(_ state: inout State, for deadline: MonotonicInstant) {
        state.armedFor = deadline
        if timerDescriptor >= 0 {
            // Zero would disarm; the monotonic origin is boot, so real deadlines are far above it.
            _ = bls_timerfd_arm(timerDescriptor, max(1, deadline.nanoseconds))
        } else {
            let delay = max(0, deadline.nanoseconds - MonotonicInstant.systemNow.nanoseconds)
            DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(clamping: delay))) { [weak self] in
                self?.runDue()
            }
        }
    }

    private func start() {
        guard timerDescriptor >= 0 else { return }
        NamedThread.start("blesensor-timers") { [self] in
            while true {
                guard bls_timerfd_wait(timerDescriptor) >= 0 else {
                    // Only EBADF/EINVAL can get here, neither of which retrying would fix.
                    return
                }
                runDue()
            }
        }
    }

    /// Takes the due timers, runs their actions without the lock, then re-arms once for whatever
    /// is earliest now (actions often schedule the next tick).
    private func runDue() {
        let due = state.withLock { state -> [TimerHandle] in
            state.running = true
            return state.heap.popDue(at: .systemNow)
        }
        for timer in due { timer.fire() }
        state.withLock { state in
            state.running = false
            state.armedFor = nil
            if let next = state.heap.earliestDeadline() { arm(&state, for: next) }
        }
    }
}
