import Synchronization

/// Hands every host event to each consumer stream, so the peripheral and the central role (and
/// anything else) can share one controller.
///
/// Events are yielded under the lock that also guards subscription: every stream sees the same
/// events in the same (controller) order, starting with the first event after it was made, and a
/// stream made after the host finished ends at once. `yield` on an unbounded stream never blocks.
/// Calling context: any thread.
final class HostEventBroadcaster: Sendable {
    private struct State {
        var sinks: [AsyncStream<HCIHostEvent>.Continuation] = []
        var finished = false
    }

    private let state = Mutex(State())

    init() {}

    /// A new stream receiving every event from now on.
    func makeStream() -> AsyncStream<HCIHostEvent> {
        let (stream, sink) = AsyncStream.makeStream(of: HCIHostEvent.self)
        let finished = state.withLock { state -> Bool in
            if !state.finished { state.sinks.append(sink) }
            return state.finished
        }
        if finished { sink.finish() }
        return stream
    }

    func yield(_ event: HCIHostEvent) {
        state.withLock { state in
            for sink in state.sinks { sink.yield(event) }
        }
    }

    /// Ends every stream (the transport is gone); later streams end at once.
    func finish() {
        let sinks = state.withLock { state -> [AsyncStream<HCIHostEvent>.Continuation] in
            state.finished = true
            defer { state.sinks = [] }
            return state.sinks
        }
        sinks.forEach { $0.finish() }
    }
}
