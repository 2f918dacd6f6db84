import BLECore
import Dispatch
import Foundation

/// Blocking work (a sensor read, a child process) on a thread of its own, waited for at most a
/// timeout on the host clock, so a driver stuck in a transfer or a hung helper cannot hang the
/// caller. The caller blocks: call it from a thread of its own, never a Swift concurrency one.
public enum BoundedWork {
    public enum Outcome<Value: Sendable>: Sendable {
        case finished(Value)
        case timedOut
    }

    /// After a time-out the work's thread is left to finish (or to end with the process); its
    /// result is dropped. `onTimeout` runs once on time-out, e.g. to kill a child process.
    public static func run<Value: Sendable>(name: String, timeout: Duration, clock: any HostClock,
                                     onTimeout: @escaping @Sendable () -> Void = {},
                                     _ work: @escaping @Sendable () -> Value) -> Outcome<Value> {
        let slot = Locked<Outcome<Value>?>(nil)
        let settled = DispatchSemaphore(value: 0)
        let settle: @Sendable (Outcome<Value>) -> Void = { outcome in
            let first = slot.withLock { current -> Bool in
                guard current == nil else { return false }
                current = outcome
                return true
            }
            if first { settled.signal() }
        }
        NamedThread.start(name) { settle(.finished(work())) }
        let timer = clock.schedule(after: timeout) { settle(.timedOut) }
        settled.wait()
        timer.cancel()
        let outcome = slot.value ?? .timedOut
        if case .timedOut = outcome { onTimeout() }
        return outcome
    }
}
