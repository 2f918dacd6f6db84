#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation

/// Starts a thread whose name the system sees (top -H, ps -L, perf, /proc/PID/task/TID/comm).
/// swift-corelibs-foundation drops a name set before `start()`, and its setter, used inside the
/// thread, can race the parent's bookkeeping and refuses names of 16 bytes or more; the thread
/// writes its own comm instead, which the kernel cuts to 15 bytes. A failure leaves the name as it
/// was: naming is for people reading `top`, never worth failing a thread over.
public enum NamedThread {
    public static func start(_ name: String, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread {
            nameCurrentThread(name)
            body()
        }
        thread.start()
    }

    private static func nameCurrentThread(_ name: String) {
        let descriptor = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        let bytes = Array(name.utf8)
        _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    }
}
