import Dispatch
import Foundation

/// Ctrl-C (and SIGTERM) as an awaitable event, so a command can leave the link cleanly instead of dying.
enum InterruptSignal {
    /// True when a signal came; false when the waiting task was cancelled first. Either way the
    /// signals' default action is back afterwards, so a second Ctrl-C during a stalled exit still ends it.
    static func wait() async -> Bool {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self)
        let numbers = [SIGINT, SIGTERM]
        let sources = numbers.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield() }
            source.resume()
            return source
        }
        var iterator = stream.makeAsyncIterator()
        let signalled = await iterator.next() != nil
        sources.forEach { $0.cancel() }
        numbers.forEach { signal($0, SIG_DFL) }
        return signalled
    }
}
