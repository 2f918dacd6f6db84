import BridgeConfiguration
import Sensors
import Synchronization

/// Opens the hardware on the first read, and again after a read failed (a bus that is not there
/// yet or went away with its adapter, a GPIO line whose monitor died, a chip that lost its
/// configuration): the failed source is closed and the next poll, at the poller's back-off, starts
/// from a fresh open. So a sensor missing at start or lost later is retried for real, and the
/// other sensors keep serving meanwhile. "No signal" and a heater cool-down are states, not failures:
/// they keep the source.
final class ReopeningSource: SensorSource {
    private struct State {
        var opened: (any SensorSource)?
        var closed = false
    }

    private let open: @Sendable () throws(SensorError) -> any SensorSource
    private let state = Mutex(State())

    init(open: @escaping @Sendable () throws(SensorError) -> any SensorSource) {
        self.open = open
    }

    func read() throws(SensorError) -> Measurement {
        let existing = try state.withLock { (state: inout State) throws(SensorError) -> (any SensorSource)? in
            // A read that raced `close` must not open the hardware again behind it.
            guard !state.closed else { throw .unavailable(sensor: "sensor", reason: "stopped") }
            return state.opened
        }
        let source: any SensorSource
        if let existing {
            source = existing
        } else {
            source = try open()
            let kept = state.withLock { state -> Bool in
                guard !state.closed else { return false }
                state.opened = source
                return true
            }
            guard kept else {
                source.close()
                throw .unavailable(sensor: "sensor", reason: "stopped")
            }
        }
        do throws(SensorError) {
            return try source.read()
        } catch {
            switch error {
            case .noSignal, .conditioning: throw error
            default: break
            }
            state.withLock { $0.opened = nil }
            source.close()
            throw error
        }
    }

    func close() {
        state.withLock { state in
            state.closed = true
            return state.opened.take()
        }?.close()
    }
}
