import ATT
import BLECore
import BridgeConfiguration
import GATT
import GATTNotify
import Peripheral
import SIGProfiles
import Sensors
import Synchronization

/// Health Thermometer 0x1809: 2A1C Temperature Measurement indicated, 2A1E Intermediate Temperature
/// notified, 2A1D Temperature Type, 2A21 Measurement Interval (read, write, indicate; Valid Range
/// descriptor). 2A1C goes out once per measurement interval (a sensor polled faster feeds 2A1E on
/// every poll); a Measurement Interval write also sets the feeding sensor's polling period.
final class HealthThermometerPublisher: ServicePublisher {
    static let measurement = CharacteristicID("health-thermometer.temperature-measurement")
    static let intermediate = CharacteristicID("health-thermometer.intermediate-temperature")
    static let temperatureType = CharacteristicID("health-thermometer.temperature-type")
    static let measurementInterval = CharacteristicID("health-thermometer.measurement-interval")
    static let validIntervals: ClosedRange<UInt16> = 1...3600

    private struct State {
        var intervalSeconds: UInt16
        /// A fault value was already sent for the current failure (sent once, not every retry).
        var faultSent: Set<PublishedCharacteristic> = []
        var lastMeasurementAt: MonotonicInstant?
        /// The feeding sensor's poll interval: half of it (at most 500 ms) is the jitter tolerated
        /// when deciding whether a measurement interval has passed.
        var pollInterval: Duration
    }

    let service: GATTService
    let updatePolicies: [CharacteristicID: UpdatePolicy] = [
        HealthThermometerPublisher.measurement: .indication,
        HealthThermometerPublisher.intermediate: .latestValue,
        HealthThermometerPublisher.measurementInterval: .indication,
    ]
    private let sink: any UpdateSink
    private let clock: any HostClock
    private let state: Mutex<State>
    private let intervalChanged: @Sendable (Duration) -> Void
    private let timeStamp: @Sendable () -> DateTime?
    /// 2A1C/2A1E carry a Fahrenheit flag (flags bit 0), so each is sent in its feeding sensor's unit.
    private let units: [PublishedCharacteristic: TemperatureUnit]

    /// `interval` is the feeding sensor's poll interval (the measurement interval is that in whole
    /// seconds, at least 1); `intervalChanged` reschedules the sensor.
    init(type: TemperatureType, interval: Duration, includesIntermediate: Bool, sink: any UpdateSink, clock: any HostClock,
         units: [PublishedCharacteristic: TemperatureUnit] = [:], timeStamp: @escaping @Sendable () -> DateTime? = WallClockTimeStamp.now,
         intervalChanged: @escaping @Sendable (Duration) -> Void) {
        self.units = units
        self.timeStamp = timeStamp
        self.sink = sink
        self.clock = clock
        self.intervalChanged = intervalChanged
        let seconds = UInt16(clamping: max(Int64(Self.validIntervals.lowerBound), interval.wholeSecondsRoundedUp))
        state = Mutex(State(intervalSeconds: min(seconds, Self.validIntervals.upperBound), pollInterval: interval))
        var characteristics = [
            GATTCharacteristic(id: Self.measurement, uuid: BluetoothUUID(0x2A1C), properties: [.indicate], permissions: []),
        ]
        if includesIntermediate {
            characteristics.append(GATTCharacteristic(id: Self.intermediate, uuid: BluetoothUUID(0x2A1E), properties: [.notify], permissions: []))
        }
        let range = MeasurementInterval(seconds: Self.validIntervals.lowerBound).encoded + MeasurementInterval(seconds: Self.validIntervals.upperBound).encoded
        characteristics += [
            GATTCharacteristic(id: Self.temperatureType, uuid: BluetoothUUID(0x2A1D), properties: [.read],
                               permissions: [.readable], value: .static(type.encoded)),
            GATTCharacteristic(id: Self.measurementInterval, uuid: BluetoothUUID(0x2A21), properties: [.read, .write, .indicate],
                               permissions: [.readable, .writeable],
                               descriptors: [GATTDescriptor(uuid: BluetoothUUID(ValidRange.uuid), value: .static(range))]),
        ]
        service = GATTService(uuid: BluetoothUUID(0x1809), characteristics: characteristics)
    }

    /// The polling period the measurement interval asks for.
    var interval: Duration { .seconds(Int64(state.withLock { $0.intervalSeconds })) }

    func owns(_ characteristic: CharacteristicID) -> Bool {
        [Self.measurement, Self.intermediate, Self.temperatureType, Self.measurementInterval].contains(characteristic)
    }

    func read(_ characteristic: CharacteristicID, descriptor: BluetoothUUID?) -> Result<[UInt8], ATTErrorCode> {
        guard characteristic == Self.measurementInterval, descriptor == nil else { return .failure(.readNotPermitted) }
        return .success(MeasurementInterval(seconds: state.withLock { $0.intervalSeconds }).encoded)
    }

    func check(_ write: WriteRequest) -> ATTErrorCode? {
        guard write.characteristic == Self.measurementInterval, write.descriptor == nil else { return .writeNotPermitted }
        guard write.value.count == 2 else { return .invalidAttributeValueLength }
        let seconds = UInt16(write.value[0]) | UInt16(write.value[1]) << 8
        // Outside the Valid Range descriptor, including 0 (no periodic measurement), which a bridge
        // that exists to report cannot honour (Health Thermometer Service 3.4.1).
        return Self.validIntervals.contains(seconds) ? nil : .outOfRange
    }

    func apply(_ write: WriteRequest) {
        guard write.value.count == 2 else { return }
        let seconds = UInt16(write.value[0]) | UInt16(write.value[1]) << 8
        let changed = state.withLock { state -> Bool in
            defer {
                state.intervalSeconds = seconds
                state.pollInterval = .seconds(Int64(seconds))
                state.lastMeasurementAt = nil
            }
            return state.intervalSeconds != seconds
        }
        guard changed else { return }
        intervalChanged(.seconds(Int64(seconds)))
        _ = sink.updateValue(MeasurementInterval(seconds: seconds).encoded, for: Self.measurementInterval)
    }

    func publish(_ outcome: PollOutcome, to characteristic: PublishedCharacteristic) {
        let id = characteristic == .intermediateTemperature ? Self.intermediate : Self.measurement
        let now = clock.now
        let unit = units[characteristic] ?? .celsius
        let temperature: IEEE11073Float?
        switch outcome {
        case .paused:
            return
        case let .measured(reading):
            let due = state.withLock { state -> Bool in
                state.faultSent.remove(characteristic)
                guard characteristic == .temperatureMeasurement, let last = state.lastMeasurementAt else { return true }
                let slack = min(state.pollInterval / 2, .milliseconds(500))
                return now - last + slack >= .seconds(Int64(state.intervalSeconds))
            }
            guard due, let celsius = reading.temperature,
                  let value = try? IEEE11073Float(unit.value(celsius: celsius), fractionDigits: 2) else { return }
            temperature = value
        case .noSignal, .failed:
            // NaN is the format's "no valid measurement": sent once, so a client never keeps
            // showing the last good temperature as current.
            let sent = state.withLock { $0.faultSent.contains(characteristic) }
            temperature = sent ? nil : .nan
        }
        // 2A1C carries when it was measured: stored measurements reach a returning central later.
        let stamp = characteristic == .temperatureMeasurement ? timeStamp() : nil
        guard let temperature, let bytes = try? TemperatureMeasurement(temperature: temperature, unit: unit == .fahrenheit ? .fahrenheit : .celsius,
                                                                          timeStamp: stamp).encoded() else { return }
        // Only a value the subscribers took counts as sent: a refused one (a full queue) goes again.
        guard sink.updateValue(bytes, for: id) else { return }
        state.withLock { state in
            if temperature == .nan { state.faultSent.insert(characteristic) }
            if characteristic == .temperatureMeasurement { state.lastMeasurementAt = now }
        }
    }
}
