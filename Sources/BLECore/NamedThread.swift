import Foundation

/// Starts a thread whose name the system sees too (top -H, ps -L, perf, /proc/PID/task/TID/comm,
/// which keep its first 15 bytes). swift-corelibs-foundation keeps a name set before `start()` to
/// itself, so the thread names itself first.
public enum NamedThread {
    public static func start(_ name: String, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread {
            Thread.current.name = name
            body()
        }
        thread.start()
    }
}
