#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Dispatch
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

    private final class Core: Sendable {
        let state = Mutex(State())
        let wake = DispatchSemaphore(value: 0)

        func loop() {
            while true {
                wake.wait()
                let next: (@Sendable () -> Void)?? = state.withLock { state in
                    if state.stopping && state.jobs.isEmpty { return .some(nil) }
                    return state.jobs.isEmpty ? nil : state.jobs.removeFirst()
                }
                switch next {
                case .none: continue
                case .some(.none):
                    return
                case let .some(.some(job)): job()
                }
            }
        }
    }

    private let core = Core()

    init() {
        let core = self.core
        let box = Unmanaged.passRetained(ThreadBody { core.loop() })
        var thread = pthread_t()
        let created = pthread_create(&thread, nil, { raw in
            let body = Unmanaged<ThreadBody>.fromOpaque(raw!).takeRetainedValue()
            body.run()
            return nil
        }, box.toOpaque())
        if created == 0 {
            pthread_detach(thread)
        } else {
            // No thread (resource limits): run jobs inline on the caller's queue instead of losing them.
            box.release()
            Thread0.fallback(core.loop)
        }
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

private final class ThreadBody {
    let run: () -> Void
    init(_ run: @escaping () -> Void) { self.run = run }
}

/// When no thread can be created, jobs run on a Dispatch queue: slower to isolate, but no read is lost.
private enum Thread0 {
    static func fallback(_ loop: @escaping @Sendable () -> Void) {
        DispatchQueue(label: "blesensor.sensor-fallback").async(execute: loop)
    }
}
