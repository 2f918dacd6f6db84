import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// Waits for the first of some signals, delivered by dispatch sources instead of a raw handler.
/// @unchecked: the sources are created once and only cancelled afterwards; dispatch is thread-safe.
final class DispatchSignalWaiter: @unchecked Sendable {
    private let stream: AsyncStream<Int32>
    private var sources: [any DispatchSourceSignal] = []

    init(signals: [Int32]) {
        let (stream, continuation) = AsyncStream.makeStream(of: Int32.self)
        self.stream = stream
        for number in signals {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            sources.append(source)
        }
    }

    func next() async -> Int32 {
        for await number in stream {
            sources.forEach { $0.cancel() }
            return number
        }
        return 0
    }
}
