import ATT
import BLECore
import BridgeConfiguration
import GATT
import GATTNotify
import Peripheral
import SIGProfiles
import Sensors
import Synchronization

/// Heart Rate 0x180D: 2A37 notified (RR-intervals merged while queued, and carried to the next
/// notification when they do not fit, oldest first), 2A38 Body Sensor Location, 2A39 Control Point.
final class HeartRatePublisher: ServicePublisher {
    static let measurement = CharacteristicID("heart-rate.measurement")
    static let bodySensorLocation = CharacteristicID("heart-rate.body-sensor-location")
    static let controlPoint = CharacteristicID("heart-rate.control-point")

    /// 20 octets fit every central (ATT_MTU 23), so no central gets a truncated interval list.
    static let measurementLength = 20
    /// Beyond this many unsent intervals (a central that stopped reading for minutes) the oldest go.
    static let maximumPendingIntervals = 64
    /// Without new intervals, the rate and contact status still go out this often.
    static let quietInterval: Duration = .seconds(1)

    private struct State {
        var pendingRR: [UInt16] = []
        var lastSent: MonotonicInstant?
    }

    let service: GATTService
    let updatePolicies: [CharacteristicID: UpdatePolicy] = [
        HeartRatePublisher.measurement: .merge { queued, incoming, length in
            HeartRateMeasurement.merging(queued: queued, incoming: incoming, maxLength: length)
        },
    ]
    private let sink: any UpdateSink
    private let clock: any HostClock
    private let state = Mutex(State())

    init(location: BodySensorLocation, sink: any UpdateSink, clock: any HostClock) {
        self.sink = sink
        self.clock = clock
        service = GATTService(uuid: BluetoothUUID(0x180D), characteristics: [
            GATTCharacteristic(id: Self.measurement, uuid: BluetoothUUID(0x2A37), properties: [.notify], permissions: []),
            GATTCharacteristic(id: Self.bodySensorLocation, uuid: BluetoothUUID(0x2A38), properties: [.read],
                               permissions: [.readable], value: .static(location.encoded)),
            GATTCharacteristic(id: Self.controlPoint, uuid: BluetoothUUID(0x2A39), properties: [.write], permissions: [.writeable]),
        ])
    }

    func owns(_ characteristic: CharacteristicID) -> Bool {
        characteristic == Self.measurement || characteristic == Self.bodySensorLocation || characteristic == Self.controlPoint
    }

    func read(_ characteristic: CharacteristicID, descriptor: BluetoothUUID?) -> Result<[UInt8], ATTErrorCode> { .failure(.readNotPermitted) }

    func check(_ write: WriteRequest) -> ATTErrorCode? {
        guard write.characteristic == Self.controlPoint, write.descriptor == nil else { return .writeNotPermitted }
        switch HeartRateControlPointCommand.parse(write.value) {
        case .success: return nil
        case let .failure(error): return ATTErrorCode(error.attErrorCode)
        }
    }

    /// Reset Energy Expended: the supported sensors measure no energy, so there is no counter to
    /// clear and the measurement carries no Energy Expended field; the command is still accepted
    /// as the service defines it.
    func apply(_ write: WriteRequest) {}

    func publish(_ outcome: PollOutcome, to characteristic: PublishedCharacteristic) {
        let now = clock.now
        let measurement: HeartRateMeasurement? = state.withLock { state in
            switch outcome {
            case let .measured(reading):
                guard let heart = reading.heartRate else { return nil }
                guard let bpm = heart.beatsPerMinute else {
                    guard heart.contact == .notDetected else { return nil }  // still collecting beats
                    // No contact: the rate is unknown (0) and the contact bits say why, once a second.
                    state.pendingRR.removeAll()
                    guard state.lastSent.map({ now - $0 >= Self.quietInterval }) ?? true else { return nil }
                    return HeartRateMeasurement(heartRate: 0, sensorContact: .notDetected)
                }
                state.pendingRR += heart.rrIntervals1024
                if state.pendingRR.count > Self.maximumPendingIntervals {
                    state.pendingRR.removeFirst(state.pendingRR.count - Self.maximumPendingIntervals)
                }
                let quiet = state.lastSent.map { now - $0 >= Self.quietInterval } ?? true
                guard !state.pendingRR.isEmpty || quiet else { return nil }
                return HeartRateMeasurement(heartRate: UInt16(saturating: bpm.rounded()), sensorContact: Self.contact(heart.contact),
                                            rrIntervals: state.pendingRR)
            case .noSignal:
                // No usable signal (no samples, ambient light): the rate is unknown (0), once a second.
                state.pendingRR.removeAll()
                guard state.lastSent.map({ now - $0 >= Self.quietInterval }) ?? true else { return nil }
                return HeartRateMeasurement(heartRate: 0, sensorContact: .notDetected)
            case .paused:
                return nil
            case .failed:
                // The format has no fault value: stop sending rather than repeat an old rate.
                state.pendingRR.removeAll()
                return nil
            }
        }
        guard let measurement, let encoding = try? measurement.encoded(maxLength: Self.measurementLength) else { return }
        let accepted = sink.updateValue(encoding.bytes, for: Self.measurement)
        state.withLock { state in
            state.lastSent = now
            // Refused (a queue is full): the intervals stay pending and go with the next value.
            if accepted { state.pendingRR = encoding.remainingRRIntervals }
        }
    }

    static func contact(_ contact: SensorContact) -> HeartRateMeasurement.SensorContact {
        switch contact {
        case .unsupported: return .notSupported
        case .detected: return .detected
        case .notDetected: return .notDetected
        }
    }
}
