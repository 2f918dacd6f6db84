import BLECore
import BridgeConfiguration
import ControlSocket
import Sensors
import Synchronization

/// What `status` reports about each sensor: its state, newest reading and when it was taken, the
/// newest error, and counters. Updated from the sensor threads.
final class SensorStatusBook: Sendable {
    private struct Entry {
        let configuration: SensorConfiguration
        var state: SensorStatus.State = .starting
        var measurement: Measurement?
        var measuredAt: MonotonicInstant?
        var error: String?
        // Int64: a 100 Hz sensor passes 2^31 reads in 249 days, which would trap on armhf.
        var reads: Int64 = 0
        var failures: Int64 = 0
    }

    private let entries: Mutex<[String: Entry]>
    private let order: [String]
    private let clock: any HostClock

    init(sensors: [SensorConfiguration], clock: any HostClock) {
        self.clock = clock
        order = sensors.map(\.name)
        entries = Mutex(Dictionary(uniqueKeysWithValues: sensors.map { ($0.name, Entry(configuration: $0)) }))
    }

    /// Records a poll; returns the state before and after it. Building a `SensorStatus` is left to
    /// those who need one (`status(of:)`): at 10 Hz per sensor its strings and arrays add up.
    @discardableResult
    func record(_ outcome: PollOutcome, sensor name: String) -> (previous: SensorStatus.State, current: SensorStatus.State)? {
        let now = clock.now
        return entries.withLock { entries -> (previous: SensorStatus.State, current: SensorStatus.State)? in
            guard var entry = entries[name] else { return nil }
            let previous = entry.state
            switch outcome {
            case let .measured(measurement):
                entry.reads += 1
                entry.error = nil
                // No contact is a state of the sensor, shown like no signal, with no value.
                if measurement.heartRate.map({ $0.beatsPerMinute == nil && $0.contact == .notDetected }) ?? false {
                    entry.state = .noSignal
                    entry.error = Self.noContact
                    entry.measurement = nil
                } else if measurement.heartRate.map({ $0.beatsPerMinute == nil }) ?? false {
                    // A heart-rate sensor still collecting its first beats has no rate yet: not a value.
                    entry.state = .starting
                } else {
                    entry.state = .ok
                    entry.measurement = measurement
                    entry.measuredAt = now
                }
            case let .noSignal(cause):
                entry.reads += 1
                entry.state = .noSignal
                entry.error = cause.description
                entry.measurement = nil
            case let .paused(reason):
                // The last ambient values stay, with their age: they are what the characteristics
                // hold. After a failure they hold "unknown" instead, so no value is shown.
                if previous != .ok && previous != .paused { entry.measurement = nil }
                entry.reads += 1
                entry.state = .paused
                entry.error = reason
            case let .failed(error):
                entry.failures += 1
                entry.state = .failed
                entry.error = error.description
            }
            entries[name] = entry
            return (previous, entry.state)
        }
    }

    static let noContact = "no contact: no finger on the sensor"

    func status(of name: String) -> SensorStatus? {
        let now = clock.now
        return entries.withLock { entries in entries[name].map { Self.status($0, now: now) } }
    }

    func snapshot() -> [SensorStatus] {
        let now = clock.now
        return entries.withLock { entries in order.compactMap { entries[$0].map { Self.status($0, now: now) } } }
    }

    private static func status(_ entry: Entry, now: MonotonicInstant) -> SensorStatus {
        let quantities = entry.configuration.driver.quantities
        let primary = quantities.first ?? .temperature
        // A failed or signal-less sensor shows no value: the last one is not current any more. A
        // paused one shows the last ambient values, still what its characteristics hold, with their age.
        let current = entry.state == .ok || entry.state == .paused ? entry.measurement : nil
        let unit = entry.configuration.unit
        let readings = current.map { measurement in quantities.compactMap { reading(of: $0, in: measurement, unit: unit) } } ?? []
        let age = entry.measuredAt.map { Double((now - $0).saturatingNanoseconds) / 1e9 }
        return SensorStatus(name: entry.configuration.name, driver: entry.configuration.driver.rawValue,
                            value: readings.first { $0.quantity == primary.rawValue }?.value,
                            unit: primary == .temperature ? unit.symbol : primary.unit,
                            ageSeconds: age, state: entry.state, error: entry.error, readings: readings,
                            reads: entry.reads, failures: entry.failures)
    }

    /// A temperature in the sensor's display unit (the measurement itself is in °C).
    private static func reading(of quantity: Quantity, in measurement: Measurement, unit: TemperatureUnit) -> QuantityReading? {
        switch quantity {
        case .temperature:
            return measurement.temperature.map { QuantityReading(quantity: quantity.rawValue, value: unit.value(celsius: $0), unit: unit.symbol) }
        case .humidity: return measurement.humidity.map { QuantityReading(quantity: quantity.rawValue, value: $0, unit: quantity.unit) }
        case .pressure: return measurement.pressure.map { QuantityReading(quantity: quantity.rawValue, value: $0, unit: quantity.unit) }
        case .batteryLevel: return measurement.batteryPercent.map { QuantityReading(quantity: quantity.rawValue, value: $0, unit: quantity.unit) }
        case .oxygenSaturation:
            guard case let .success(estimate) = measurement.oxygenSaturation else { return nil }
            return QuantityReading(quantity: quantity.rawValue, value: estimate.percent, unit: quantity.unit)
        case .heartRate:
            guard let heart = measurement.heartRate, let bpm = heart.beatsPerMinute else { return nil }
            let contact: String = switch heart.contact {
            case .detected: "detected"
            case .notDetected: "not-detected"
            case .unsupported: "unsupported"
            }
            return QuantityReading(quantity: quantity.rawValue, value: bpm, unit: quantity.unit,
                                   rrIntervalsMilliseconds: heart.rrIntervalsMilliseconds, contact: contact)
        }
    }
}
