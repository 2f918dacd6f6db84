import BridgeConfiguration
import Sensors
import Synchronization

/// Opens the hardware on the first read and again after an open failed (a bus that is not there
/// yet, a GPIO line another program holds), so a sensor missing at start is retried with the
/// poller's back-off instead of stopping the daemon or the other sensors.
final class ReopeningSource: SensorSource {
    private let open: @Sendable () throws(SensorError) -> any SensorSource
    private let opened = Mutex<(any SensorSource)?>(nil)

    init(open: @escaping @Sendable () throws(SensorError) -> any SensorSource) {
        self.open = open
    }

    func read() throws(SensorError) -> Measurement {
        let source: any SensorSource
        if let existing = opened.withLock({ $0 }) {
            source = existing
        } else {
            source = try open()
            opened.withLock { $0 = source }
        }
        return try source.read()
    }

    func close() {
        opened.withLock { $0.take() }?.close()
    }
}
