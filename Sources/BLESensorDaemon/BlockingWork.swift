import Foundation

/// Runs file-system and socket set-up (bind, chmod, the address file, joining the control
/// server's thread) on a thread of its own and awaits it, so no blocking system call runs on a
/// Swift concurrency thread.
enum BlockingWork {
    static func run<T: Sendable, E: Error>(_ body: @escaping @Sendable () throws(E) -> T) async throws(E) -> T {
        let result: Result<T, E> = await withCheckedContinuation { continuation in
            Thread {
                do throws(E) { continuation.resume(returning: .success(try body())) } catch { continuation.resume(returning: .failure(error)) }
            }.start()
        }
        return try result.get()
    }
}
