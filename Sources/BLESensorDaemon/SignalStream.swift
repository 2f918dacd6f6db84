import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// SIGTERM / SIGINT as an async stream, delivered through dispatch sources rather than a handler
/// that could run in the middle of anything.
enum SignalStream {
    static func make(_ signals: [Int32] = [SIGTERM, SIGINT]) -> AsyncStream<Int32> {
        AsyncStream { continuation in
            let sources = signals.map { number -> any DispatchSourceSignal in
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
                source.setEventHandler { continuation.yield(number) }
                source.resume()
                return source
            }
            continuation.onTermination = { _ in sources.forEach { $0.cancel() } }
        }
    }
}
