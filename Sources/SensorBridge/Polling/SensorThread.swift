import Dispatch
import Foundation
import Synchronization

/// A dedicated thread that runs one sensor's blocking reads (I2C transfers, datasheet conversion
/// delays, sysfs reads), so they never hold up the host's timer thread or a Swift concurrency thread.
///
/// Jobs run in order. A job submitted while one runs waits; `submit` never blocks the caller.
final class SensorThread: Sendable {
    private struct State {
        var jobs: [@Sendable () -> Void] = []
        var stopping = false
    }

    private enum Next {
        case run(@Sendable () -> Void)
        /// Woken by `stop` while jobs remained: they are taken first, each with its own wake-up.
        case idle
        case finish
    }

    /// Shared with the thread, which never holds the `SensorThread` itself.
    private final class Core: Sendable {
        let state = Mutex(State())
        let wake = DispatchSemaphore(value: 0)

        func loop() {
            while true {
                wake.wait()
                let next = state.withLock { state -> Next in
                    if !state.jobs.isEmpty { return .run(state.jobs.removeFirst()) }
                    return state.stopping ? .finish : .idle
                }
                switch next {
                case let .run(job): job()
                case .idle: continue
                case .finish: return
                }
            }
        }
    }

    private let core = Core()

    init() {
        let core = self.core
        Thread { core.loop() }.start()
    }

    /// Queues a job; returns at once.
    func submit(_ job: @escaping @Sendable () -> Void) {
        let accepted = core.state.withLock { state -> Bool in
            guard !state.stopping else { return false }
            state.jobs.append(job)
            return true
        }
        if accepted { core.wake.signal() }
    }

    /// Lets queued jobs finish, then ends the thread; returns at once.
    func stop() {
        let first = core.state.withLock { state -> Bool in
            defer { state.stopping = true }
            return !state.stopping
        }
        guard first else { return }
        core.wake.signal()
    }
}
