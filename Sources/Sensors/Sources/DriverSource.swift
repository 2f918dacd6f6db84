import Synchronization

/// A sensor source built from a driver: a read closure plus an optional one-time setup that is
/// repeated after the chip reset (MAX3010x), and calibration offsets applied to every reading.
public final class DriverSource: SensorSource {
    public typealias Read = @Sendable () throws(SensorError) -> Measurement
    public typealias Setup = @Sendable () throws(SensorError) -> Void

    private let setup: Setup?
    private let readBody: Read
    private let closeBody: @Sendable () -> Void
    private let offsets: [Quantity: Double]
    private let needsSetup = Mutex(true)

    public init(offsets: [Quantity: Double], setup: Setup? = nil, read: @escaping Read, close: @escaping @Sendable () -> Void = {}) {
        self.offsets = offsets
        self.setup = setup
        self.readBody = read
        self.closeBody = close
    }

    public func read() throws(SensorError) -> Measurement {
        if let setup, needsSetup.withLock({ $0 }) {
            try setup()
            needsSetup.withLock { $0 = false }
        }
        do {
            return calibrated(try readBody())
        } catch {
            // A chip that lost its configuration is set up again on the next poll.
            if case .deviceReset = error { needsSetup.withLock { $0 = true } }
            throw error
        }
    }

    public func close() { closeBody() }

    private func calibrated(_ measurement: Measurement) -> Measurement {
        guard !offsets.isEmpty else { return measurement }
        var result = measurement
        if let offset = offsets[.temperature], let value = result.temperature { result.temperature = value + offset }
        if let offset = offsets[.humidity], let value = result.humidity { result.humidity = min(100, max(0, value + offset)) }
        if let offset = offsets[.pressure], let value = result.pressure { result.pressure = value + offset }
        if let offset = offsets[.batteryLevel], let value = result.batteryPercent { result.batteryPercent = value + offset }
        return result
    }
}
