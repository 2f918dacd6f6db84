import Dispatch
import Foundation

/// Ctrl-C as an awaitable event, so a command can leave the link cleanly instead of dying.
enum InterruptSignal {
    /// Returns at the first SIGINT or SIGTERM after the call (or when the task is cancelled).
    static func wait() async {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self)
        let sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield() }
            source.resume()
            return source
        }
        var iterator = stream.makeAsyncIterator()
        _ = await iterator.next()
        sources.forEach { $0.cancel() }
    }
}
