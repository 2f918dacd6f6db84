import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// SIGTERM / SIGINT as an async stream, delivered through dispatch sources rather than a handler
/// that could run in the middle of anything. While the stream lives the signals' default action is
/// off; when it ends (its reader stopped or was cancelled) it stays off, or comes back with
/// `restoringDefaultAtEnd` (a command then dies on a second Ctrl-C if leaving hangs).
public enum SignalStream {
    public static func make(_ signals: [Int32] = [SIGTERM, SIGINT], restoringDefaultAtEnd: Bool = false) -> AsyncStream<Int32> {
        AsyncStream { continuation in
            let sources = signals.map { number -> any DispatchSourceSignal in
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
                source.setEventHandler { continuation.yield(number) }
                source.resume()
                return source
            }
            let owner = SignalSources(sources)
            continuation.onTermination = { _ in
                owner.cancel()
                if restoringDefaultAtEnd { signals.forEach { signal($0, SIG_DFL) } }
            }
        }
    }
}

/// Keeps the dispatch sources alive for as long as the stream.
/// @unchecked: dispatch sources are thread-safe; the array itself is never mutated.
private final class SignalSources: @unchecked Sendable {
    let sources: [any DispatchSourceSignal]
    init(_ sources: [any DispatchSourceSignal]) { self.sources = sources }
    func cancel() { sources.forEach { $0.cancel() } }
}
