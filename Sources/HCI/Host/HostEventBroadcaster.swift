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
        var sinks: [Int: AsyncStream<HCIHostEvent>.Continuation] = [:]
        var nextID = 0
        var finished = false
    }

    private let state = Mutex(State())

    init() {}

    /// Streams being fed (for tests: a stream nobody asked for must not exist).
    var consumerCount: Int { state.withLock { $0.sinks.count } }

    /// A new stream receiving every event from now on.
    func makeStream() -> AsyncStream<HCIHostEvent> {
        let (stream, sink) = AsyncStream.makeStream(of: HCIHostEvent.self)
        let id = state.withLock { state -> Int? in
            guard !state.finished else { return nil }
            state.nextID += 1
            state.sinks[state.nextID] = sink
            return state.nextID
        }
        guard let id else {
            sink.finish()
            return stream
        }
        // A consumer that went away must not keep buffering events.
        sink.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.sinks.removeValue(forKey: id) }
        }
        return stream
    }

    func yield(_ event: HCIHostEvent) {
        state.withLock { state in
            // Under the lock: yields from the reader thread and the host actor never interleave.
            for sink in state.sinks.values { sink.yield(event) }
        }
    }

    /// Ends every stream (the transport is gone); later streams end at once.
    func finish() {
        let sinks = state.withLock { state -> [AsyncStream<HCIHostEvent>.Continuation] in
            state.finished = true
            defer { state.sinks = [:] }
            return Array(state.sinks.values)
        }
        sinks.forEach { $0.finish() }
    }
}
