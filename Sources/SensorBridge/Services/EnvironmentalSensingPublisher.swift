import ATT
import BLECore
import BridgeConfiguration
import GATT
import GATTNotify
import Peripheral
import SIGProfiles
import Sensors
import Synchronization

/// Environmental Sensing 0x181A: temperature 2A6E, humidity 2A6F and pressure 2A6D, each readable
/// and notified, with an ES Measurement descriptor and a writable ES Trigger Setting that decides
/// when a new reading is notified (fixed interval, no more often than, value changed, comparisons).
final class EnvironmentalSensingPublisher: ServicePublisher {
    /// ESS 1.0 §1.6: "Condition not supported".
    static let conditionNotSupported = ATTErrorCode.application(0x01)

    struct Channel: Sendable {
        let published: PublishedCharacteristic
        let id: CharacteristicID
        let format: ScalarFormat
        /// Poll jitter an interval trigger tolerates: half the feeding sensor's poll interval, at
        /// most 500 ms, so a 1 s trigger fires on every 1 s poll but never twice a second.
        let slack: Duration
    }

    private struct ChannelState {
        var trigger: ESTriggerSetting
        /// The newest reading, or the format's "unknown" after a fault; nil before the first poll.
        var current: ScalarValue?
        var lastNotified: ScalarValue?
        var lastNotifiedAt: MonotonicInstant?
        var faultSent = false
    }

    let service: GATTService
    let updatePolicies: [CharacteristicID: UpdatePolicy]
    private let channels: [PublishedCharacteristic: Channel]
    private let sink: any UpdateSink
    private let clock: any HostClock
    private let state: Mutex<[CharacteristicID: ChannelState]>

    /// `intervals`: the poll interval of the sensor feeding each characteristic; the default trigger
    /// notifies at that interval (whole seconds, at least 1).
    init(published: [PublishedCharacteristic], intervals: [PublishedCharacteristic: Duration], sink: any UpdateSink, clock: any HostClock) {
        self.sink = sink
        self.clock = clock
        var channels: [PublishedCharacteristic: Channel] = [:]
        var states: [CharacteristicID: ChannelState] = [:]
        var characteristics: [GATTCharacteristic] = []
        for characteristic in published {
            guard let format = Self.format(of: characteristic) else { continue }
            let id = CharacteristicID("environmental-sensing." + characteristic.rawValue)
            let seconds = UInt32(clamping: max(1, (intervals[characteristic] ?? .seconds(1)).wholeSecondsRoundedUp))
            let poll = intervals[characteristic] ?? .seconds(1)
            channels[characteristic] = Channel(published: characteristic, id: id, format: format, slack: min(poll / 2, .milliseconds(500)))
            states[id] = ChannelState(trigger: .fixedInterval(seconds: seconds))
            let measurement = (try? ESMeasurementDescriptor(samplingFunction: .instantaneous, measurementPeriod: 0, updateInterval: seconds,
                                                            application: 0x00, measurementUncertainty: Self.uncertainty(format)).encoded()) ?? []
            characteristics.append(GATTCharacteristic(
                id: id, uuid: characteristic.characteristicUUID, properties: [.read, .notify], permissions: [.readable],
                descriptors: [
                    GATTDescriptor(uuid: BluetoothUUID(ESMeasurementDescriptor.uuid), value: .static(measurement)),
                    GATTDescriptor(uuid: BluetoothUUID(ESTriggerSetting.uuid), permissions: [.readable, .writeable], value: .dynamic),
                ]))
        }
        self.channels = channels
        self.state = Mutex(states)
        updatePolicies = Dictionary(uniqueKeysWithValues: channels.values.map { ($0.id, UpdatePolicy.latestValue) })
        service = GATTService(uuid: BluetoothUUID(0x181A), characteristics: characteristics)
    }

    /// Measurement Uncertainty in 0.5 % steps: the supported chips' datasheet accuracy (±1 °C,
    /// ±3 %RH, ±1 hPa at typical indoor readings of about 20 °C, 45 %RH and 1000 hPa), rounded up.
    static func uncertainty(_ format: ScalarFormat) -> UInt8 {
        switch format {
        case .temperature: return 10
        case .humidity: return 14
        case .pressure, .measurementInterval: return 1
        }
    }

    static func format(of characteristic: PublishedCharacteristic) -> ScalarFormat? {
        switch characteristic {
        case .environmentalTemperature: return .temperature
        case .humidity: return .humidity
        case .pressure: return .pressure
        default: return nil
        }
    }

    func owns(_ characteristic: CharacteristicID) -> Bool { state.withLock { $0[characteristic] != nil } }

    private func format(of id: CharacteristicID) -> ScalarFormat? { channels.values.first { $0.id == id }?.format }

    func read(_ characteristic: CharacteristicID, descriptor: BluetoothUUID?) -> Result<[UInt8], ATTErrorCode> {
        guard let format = format(of: characteristic) else { return .failure(.readNotPermitted) }
        let channel = state.withLock { $0[characteristic] }
        if descriptor == BluetoothUUID(ESTriggerSetting.uuid) {
            guard let trigger = channel?.trigger, let bytes = try? trigger.encoded() else { return .failure(.unlikelyError) }
            return .success(bytes)
        }
        guard descriptor == nil else { return .failure(.readNotPermitted) }
        if let current = channel?.current { return .success(current.encoded) }
        // Before the first reading: "unknown" where the format has it; pressure has none.
        guard let unknown = Self.unknown(format) else { return .failure(.unlikelyError) }
        return .success(unknown.encoded)
    }

    func check(_ write: WriteRequest) -> ATTErrorCode? {
        guard let format = format(of: write.characteristic), write.descriptor == BluetoothUUID(ESTriggerSetting.uuid) else {
            return .writeNotPermitted
        }
        guard let trigger = try? ESTriggerSetting(decoding: write.value, format: format) else { return Self.conditionNotSupported }
        switch trigger {
        case let .fixedInterval(seconds), let .noLessThan(seconds):
            return seconds == 0 ? Self.conditionNotSupported : nil
        default:
            return nil
        }
    }

    func apply(_ write: WriteRequest) {
        guard let format = format(of: write.characteristic), let trigger = try? ESTriggerSetting(decoding: write.value, format: format) else { return }
        state.withLock { $0[write.characteristic]?.trigger = trigger }
    }

    func publish(_ outcome: PollOutcome, to characteristic: PublishedCharacteristic) {
        // Paused: nothing ambient to send; the characteristic keeps its last value.
        guard let channel = channels[characteristic], outcome.isPaused == false else { return }
        let now = clock.now
        let toSend: (value: ScalarValue, fault: Bool)? = state.withLock { states in
            guard var entry = states[channel.id] else { return nil }
            defer { states[channel.id] = entry }
            guard case let .measured(reading) = outcome, let value = Self.value(reading, channel.format) else {
                // A fault: "unknown" once where the format has it, so no client keeps an old value as current.
                guard let unknown = Self.unknown(channel.format) else { entry.current = nil; return nil }
                entry.current = unknown
                return entry.faultSent ? nil : (unknown, true)
            }
            entry.faultSent = false
            entry.current = value
            guard Self.triggers(entry.trigger, value: value, last: entry.lastNotified, lastAt: entry.lastNotifiedAt, now: now,
                                slack: channel.slack) else { return nil }
            return (value, false)
        }
        // Only a value the subscribers took counts as sent: a refused one (a full queue) goes again.
        guard let toSend, sink.updateValue(toSend.value.encoded, for: channel.id) else { return }
        state.withLock { states in
            if toSend.fault { states[channel.id]?.faultSent = true }
            states[channel.id]?.lastNotified = toSend.value
            states[channel.id]?.lastNotifiedAt = now
        }
    }

    /// Whether the trigger condition holds for a new reading (ESS 3.1.2.3). Intervals tolerate
    /// `slack` of poll jitter so a 1 s trigger on a 1 s poll fires on every poll.
    static func triggers(_ trigger: ESTriggerSetting, value: ScalarValue, last: ScalarValue?, lastAt: MonotonicInstant?,
                         now: MonotonicInstant, slack: Duration) -> Bool {
        func elapsed(_ seconds: UInt32) -> Bool {
            guard let lastAt else { return true }
            return now - lastAt + slack >= .seconds(Int64(seconds))
        }
        switch trigger {
        case .inactive: return false
        case let .fixedInterval(seconds): return elapsed(seconds)
        case let .noLessThan(seconds): return value != last && elapsed(seconds)
        case .valueChanged: return value != last
        case let .comparison(comparison, operand):
            guard let number = value.number, let reference = operand.number else { return false }
            switch comparison {
            case .lessThan: return number < reference
            case .lessThanOrEqual: return number <= reference
            case .greaterThan: return number > reference
            case .greaterThanOrEqual: return number >= reference
            case .equal: return number == reference
            case .notEqual: return number != reference
            }
        }
    }

    static func value(_ reading: Measurement, _ format: ScalarFormat) -> ScalarValue? {
        switch format {
        case .temperature: return reading.temperature.flatMap { try? ESTemperature(celsius: $0) }.map(ScalarValue.temperature)
        case .humidity: return reading.humidity.flatMap { try? Humidity(percent: min(100, max(0, $0))) }.map(ScalarValue.humidity)
        case .pressure: return reading.pressure.flatMap { try? Pressure(pascals: $0) }.map(ScalarValue.pressure)
        case .measurementInterval: return nil
        }
    }

    static func unknown(_ format: ScalarFormat) -> ScalarValue? {
        switch format {
        case .temperature: return .temperature(.unknown)
        case .humidity: return .humidity(.unknown)
        case .pressure, .measurementInterval: return nil
        }
    }
}
