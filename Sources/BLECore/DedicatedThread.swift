import Foundation

/// Runs blocking work (a system call that can take seconds, file-system or socket set-up, a whole
/// blocking check) on a thread of its own and awaits the result, so none of it runs on a Swift
/// concurrency thread.
public enum DedicatedThread {
    public static func run<T: Sendable, E: Error>(name: String? = nil,
                                                  _ body: @escaping @Sendable () throws(E) -> T) async throws(E) -> T {
        let result: Result<T, E> = await withCheckedContinuation { continuation in
            NamedThread.start(name ?? "blesensor-work") {
                do throws(E) { continuation.resume(returning: .success(try body())) } catch { continuation.resume(returning: .failure(error)) }
            }
        }
        return try result.get()
    }
}
