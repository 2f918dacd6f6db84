import Foundation

/// Runs blocking system calls (HCIDEVDOWN waits for the controller, seconds at worst) on a thread of
/// their own and awaits the result, so none runs on a Swift concurrency thread.
enum DedicatedThread {
    static func run<T: Sendable>(name: String, _ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            let thread = Thread { continuation.resume(returning: body()) }
            thread.name = name
            thread.start()
        }
    }
}
