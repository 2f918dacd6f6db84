import Synchronization

/// Bounds the write commands waiting in the application's event stream: taken when one is handed
/// over, returned when the application takes the event.
final class CommandBudget: Sendable {
    private struct State {
        var inFlight = 0
        // Int64: a flooding central could push a 32-bit Int (armhf) past 2^31 within weeks.
        var dropped: Int64 = 0
    }

    private let state = Mutex(State())
    let limit: Int

    init(limit: Int) { self.limit = max(1, limit) }

    func acquire() -> Bool {
        state.withLock { state in
            guard state.inFlight < limit else { return false }
            state.inFlight += 1
            return true
        }
    }

    func release() {
        state.withLock { $0.inFlight = max(0, $0.inFlight - 1) }
    }

    /// Counts a dropped command; returns the total so far.
    func noteDropped() -> Int64 {
        state.withLock { state in
            state.dropped += 1
            return state.dropped
        }
    }

    var dropped: Int64 { state.withLock { $0.dropped } }
}
