import ATT
import BLECore
import BridgeConfiguration
import GATT
import GATTNotify
import Peripheral
import SIGProfiles
import Sensors
import Synchronization

/// Pulse Oximeter 0x1822: 2A5F PLX Continuous Measurement notified on every poll, 2A60 PLX Features
/// read. The spec lets a server offer Continuous, Spot-check or both; a sensor that streams offers
/// Continuous. Spot-check 2A5E (indicated) is left out: it describes one completed measurement
/// episode, which a continuously worn sensor has no event to end, and its storage feature needs
/// the Record Access Control Point.
///
/// Status is set from what the estimator knows: a number only when it passed every gate
/// (SpO2 and PR NaN otherwise, with Measurement Unavailable), "Early Estimated Data" never claimed,
/// "Questionable Measurement Detected" when the R of recent beats disagree, and the device and
/// sensor status bit for the gate that fired (no finger → Sensor Unconnected to User).
final class PulseOximeterPublisher: ServicePublisher {
    static let continuous = CharacteristicID("pulse-oximeter.continuous-measurement")
    static let features = CharacteristicID("pulse-oximeter.features")

    /// Every status bit `publish` can set, announced in PLX Features.
    static let measurementStatusSupport: PLXMeasurementStatus = [
        .measurementOngoing, .measurementUnavailable, .questionableMeasurementDetected, .invalidMeasurementDetected,
    ]
    static let deviceStatusSupport: PLXDeviceAndSensorStatus = [
        .inadequateSignalDetected, .lowPerfusionDetected, .erraticSignalDetected, .nonpulsatileSignalDetected,
        .questionablePulseDetected, .signalAnalysisOngoing, .sensorInterferenceDetected, .sensorUnconnectedToUser,
        .sensorMalfunctioning,
    ]
    static let featureValue = PLXFeatures(supported: .pulseAmplitudeIndex, measurementStatusSupport: measurementStatusSupport,
                                          deviceAndSensorStatusSupport: deviceStatusSupport)

    let service: GATTService
    let updatePolicies: [CharacteristicID: UpdatePolicy] = [PulseOximeterPublisher.continuous: .latestValue]
    private let sink: any UpdateSink

    init(sink: any UpdateSink) {
        self.sink = sink
        // Encoding a fixed, valid value cannot fail; an empty value would only follow a broken constant.
        let features = (try? Self.featureValue.encoded()) ?? []
        service = GATTService(uuid: BluetoothUUID(0x1822), characteristics: [
            GATTCharacteristic(id: Self.continuous, uuid: BluetoothUUID(0x2A5F), properties: [.notify], permissions: []),
            GATTCharacteristic(id: Self.features, uuid: BluetoothUUID(0x2A60), properties: [.read], permissions: [.readable],
                               value: .static(features)),
        ])
    }

    func owns(_ characteristic: CharacteristicID) -> Bool {
        characteristic == Self.continuous || characteristic == Self.features
    }

    func read(_ characteristic: CharacteristicID, descriptor: BluetoothUUID?) -> Result<[UInt8], ATTErrorCode> { .failure(.readNotPermitted) }

    func publish(_ outcome: PollOutcome, to characteristic: PublishedCharacteristic) {
        guard let measurement = Self.measurement(for: outcome), let bytes = try? measurement.encoded() else { return }
        _ = sink.updateValue(bytes, for: Self.continuous)
    }

    /// The 2A5F value for one poll; nil when the sensor failed (the value then stops, as for Heart Rate,
    /// rather than repeat an old number).
    static func measurement(for outcome: PollOutcome) -> PLXContinuousMeasurement? {
        switch outcome {
        case let .measured(reading):
            if reading.heartRate?.contact == .notDetected {
                return PLXContinuousMeasurement(normal: PLXSpO2PR(spO2: .nan, pulseRate: .nan),
                                                measurementStatus: .measurementUnavailable, deviceAndSensorStatus: .sensorUnconnectedToUser)
            }
            let pulseRate = (reading.heartRate?.beatsPerMinute).flatMap { try? IEEE11073SFloat($0, fractionDigits: 0) } ?? .nan
            switch reading.oxygenSaturation {
            case let .success(estimate):
                guard let spO2 = try? IEEE11073SFloat(estimate.percent, fractionDigits: 1),
                      let index = try? IEEE11073SFloat(estimate.perfusionIndexPercent, fractionDigits: 2) else { return nil }
                return PLXContinuousMeasurement(normal: PLXSpO2PR(spO2: spO2, pulseRate: pulseRate), measurementStatus: [],
                                                deviceAndSensorStatus: [], pulseAmplitudeIndex: index)
            case let .failure(gate):
                let (status, device) = flags(for: gate)
                return PLXContinuousMeasurement(normal: PLXSpO2PR(spO2: .nan, pulseRate: pulseRate),
                                                measurementStatus: status, deviceAndSensorStatus: device)
            case nil:
                // Heart-rate mode: the red LED alone cannot give a saturation.
                return PLXContinuousMeasurement(normal: PLXSpO2PR(spO2: .nan, pulseRate: pulseRate),
                                                measurementStatus: .measurementUnavailable, deviceAndSensorStatus: .inadequateSignalDetected)
            }
        case let .noSignal(cause):
            // No finger arrives as a reading with contact "not detected" (above).
            let device: PLXDeviceAndSensorStatus = switch cause {
            case .noHeartbeat, .noPulse: .nonpulsatileSignalDetected
            case .ambientLightOverflow: .sensorInterferenceDetected
            case .noSamples, .noBattery, .probeSilent, .probeUnpowered: .sensorMalfunctioning
            }
            return PLXContinuousMeasurement(normal: PLXSpO2PR(spO2: .nan, pulseRate: .nan),
                                            measurementStatus: .measurementUnavailable, deviceAndSensorStatus: device)
        case .failed, .paused:
            return nil
        }
    }

    static func flags(for gate: SpO2Estimator.Gate) -> (PLXMeasurementStatus, PLXDeviceAndSensorStatus) {
        switch gate {
        case .noContact: return (.measurementUnavailable, .sensorUnconnectedToUser)
        case .saturated: return (.measurementUnavailable, .inadequateSignalDetected)
        case .signalTooWeak: return (.measurementUnavailable, .lowPerfusionDetected)
        case .motion: return (.measurementUnavailable, .erraticSignalDetected)
        case .ratioOutOfRange: return ([.measurementUnavailable, .invalidMeasurementDetected], .questionablePulseDetected)
        case .unstableRatio: return ([.measurementUnavailable, .questionableMeasurementDetected], .questionablePulseDetected)
        case .acquiring: return ([.measurementOngoing, .measurementUnavailable], .signalAnalysisOngoing)
        case .noPulse: return (.measurementUnavailable, .nonpulsatileSignalDetected)
        }
    }
}
