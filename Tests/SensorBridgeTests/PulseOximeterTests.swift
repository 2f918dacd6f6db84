import BLECore
import BridgeConfiguration
import GATT
import Logging
import SIGProfiles
import Sensors
import Testing
import TestSupport
@testable import SensorBridge

@Suite struct PulseOximeterPublisherTests {
    let sink = RecordingSink()

    func published(_ outcome: PollOutcome) throws -> PLXContinuousMeasurement {
        let publisher = PulseOximeterPublisher(sink: sink)
        publisher.publish(outcome, to: .plxContinuousMeasurement)
        return try PLXContinuousMeasurement(decoding: try #require(sink.values(of: PulseOximeterPublisher.continuous).last))
    }

    func heart(_ bpm: Double?) -> HeartRateReading {
        HeartRateReading(beatsPerMinute: bpm, rrIntervalsMilliseconds: [], contact: .detected)
    }

    @Test func aCleanEstimateIsSentWithPulseRateAndPerfusion() throws {
        let estimate = SpO2Estimator.Estimate(percent: 98.757, ratio: 0.5, perfusionIndexPercent: 1.234)
        let value = try published(.measured(Measurement(heartRate: heart(71.6), oxygenSaturation: .success(estimate))))
        #expect(value.normal.spO2.doubleValue == 98.8)
        #expect(value.normal.pulseRate.doubleValue == 72)
        #expect(value.pulseAmplitudeIndex?.doubleValue == 1.23)
        #expect(value.measurementStatus == [])
        #expect(value.deviceAndSensorStatus == [])
    }

    @Test func aGatedEstimateIsNaNWithTheReasonInTheStatus() throws {
        let motion = try published(.measured(Measurement(heartRate: heart(70), oxygenSaturation: .failure(.motion))))
        #expect(motion.normal.spO2.value == .nan)
        #expect(motion.normal.pulseRate.doubleValue == 70)
        #expect(motion.measurementStatus == .measurementUnavailable)
        #expect(motion.deviceAndSensorStatus == .erraticSignalDetected)
        #expect(motion.pulseAmplitudeIndex == nil)
        let unstable = try published(.measured(Measurement(heartRate: heart(70), oxygenSaturation: .failure(.unstableRatio))))
        #expect(unstable.measurementStatus == [.measurementUnavailable, .questionableMeasurementDetected])
        let acquiring = try published(.measured(Measurement(heartRate: heart(nil), oxygenSaturation: .failure(.acquiring))))
        #expect(acquiring.normal.pulseRate.value == .nan)
        #expect(acquiring.measurementStatus == [.measurementOngoing, .measurementUnavailable])
        #expect(acquiring.deviceAndSensorStatus == .signalAnalysisOngoing)
        let weak = try published(.measured(Measurement(heartRate: heart(70), oxygenSaturation: .failure(.signalTooWeak))))
        #expect(weak.deviceAndSensorStatus == .lowPerfusionDetected)
    }

    @Test func noFingerIsSensorUnconnectedToUser() throws {
        // The monitor reports no finger as a reading whose contact is "not detected", not as a fault.
        let noContact = HeartRateReading(beatsPerMinute: nil, rrIntervalsMilliseconds: [], contact: .notDetected)
        let value = try published(.measured(Measurement(heartRate: noContact, oxygenSaturation: .failure(.noContact))))
        #expect(value.normal.spO2.value == .nan && value.normal.pulseRate.value == .nan)
        #expect(value.measurementStatus == .measurementUnavailable)
        #expect(value.deviceAndSensorStatus == .sensorUnconnectedToUser)
        let noBeat = try published(.noSignal(.noHeartbeat(seconds: 3)))
        #expect(noBeat.deviceAndSensorStatus == .nonpulsatileSignalDetected)
    }

    @Test func eachNoSignalCauseHasItsOwnStatusBitAnnouncedInFeatures() throws {
        let expected: [(NoSignalCause, PLXDeviceAndSensorStatus)] = [
            (.noHeartbeat(seconds: 3), .nonpulsatileSignalDetected), (.ambientLightOverflow, .sensorInterferenceDetected),
            (.noSamples(seconds: 1), .sensorMalfunctioning),
        ]
        for (cause, bit) in expected {
            let value = try published(.noSignal(cause))
            #expect(value.deviceAndSensorStatus == bit, "\(cause)")
            #expect(value.measurementStatus == .measurementUnavailable)
            #expect(PulseOximeterPublisher.featureValue.deviceAndSensorStatusSupport?.isSuperset(of: bit) == true, "\(cause)")
        }
    }

    @Test func aFailedSensorSendsNothing() {
        let publisher = PulseOximeterPublisher(sink: sink)
        publisher.publish(.failed(Fixtures.measurementError), to: .plxContinuousMeasurement)
        #expect(sink.values(of: PulseOximeterPublisher.continuous).isEmpty)
    }

    @Test func everyStatusBitSentIsAnnouncedInFeatures() throws {
        let gates: [SpO2Estimator.Gate] = [.noContact, .saturated, .signalTooWeak, .motion, .ratioOutOfRange(2),
                                           .unstableRatio, .acquiring, .noPulse]
        let features = PulseOximeterPublisher.featureValue
        for gate in gates {
            let (status, device) = PulseOximeterPublisher.flags(for: gate)
            #expect(features.measurementStatusSupport?.isSuperset(of: status) == true, "\(gate)")
            #expect(features.deviceAndSensorStatusSupport?.isSuperset(of: device) == true, "\(gate)")
        }
        #expect(features.supported.contains(.pulseAmplitudeIndex))
        let service = PulseOximeterPublisher(sink: sink).service
        #expect(service.uuid == BluetoothUUID(0x1822))
        #expect(service.characteristics.map(\.uuid) == [BluetoothUUID(0x2A5F), BluetoothUUID(0x2A60)])
        // Supported Features 0x0043, then both support fields (PLX Features layout).
        let bytes = try features.encoded()
        #expect(bytes.count == 7 && bytes[0] == 0x43 && bytes[1] == 0x00)
    }
}

@Suite struct SimulatedOximeterTests {
    /// The simulated board's MAX30102 makes red/IR with R = 0.5: the MAXREFDES117 curve gives
    /// −45.060·0.25 + 30.354·0.5 + 94.845 = 98.757 %, sent as 98.8 in 2A5F.
    @Test func theSimulatedFingerReadsTheSaturationItWasBuiltFor() throws {
        let sensorClock = SimulatedSensorClock()
        let sensor = SensorConfiguration(name: "finger", driver: .max30102, pollInterval: .milliseconds(250),
                                         publish: [.heartRateMeasurement, .plxContinuousMeasurement],
                                         simulation: SimulationSettings(beatsPerMinute: 66))
        let factory = SensorSourceFactory(board: Fixtures.board, simulation: SimulatedBoard(clock: sensorClock))
        let source = try factory.makeSource(for: sensor, heaterMemory: SHT4xHeaterCycle.Memory())
        defer { source.close() }
        var last: Measurement?
        for _ in 0..<60 {
            sensorClock.advance(milliseconds: 250)
            last = try? source.read()
        }
        let measurement = try #require(last)
        let estimate = try #require(try measurement.oxygenSaturation?.get())
        #expect(abs(estimate.ratio - SimulatedFinger.ratio) < 0.01)
        #expect(abs(estimate.percent - 98.757) < 0.3)

        let sink = RecordingSink()
        let publisher = PulseOximeterPublisher(sink: sink)
        publisher.publish(.measured(measurement), to: .plxContinuousMeasurement)
        let value = try PLXContinuousMeasurement(decoding: try #require(sink.values(of: PulseOximeterPublisher.continuous).first))
        #expect(value.normal.spO2.doubleValue == 98.8)
        #expect(value.normal.pulseRate.doubleValue == 66)
    }

    @Test func theBridgeOffersThePulseOximeterServiceOnlyWhenPublished() {
        let sink = RecordingSink()
        func services(_ publish: [PublishedCharacteristic]) -> [BluetoothUUID] {
            let configuration = Fixtures.configuration([SensorConfiguration(name: "finger", driver: .max30102,
                                                                            pollInterval: .milliseconds(250), publish: publish)])
            let bridge = SensorBridge(configuration: configuration, sink: sink,
                                      factory: SensorSourceFactory(board: Fixtures.board, simulation: SimulatedBoard()),
                                      clock: ManualClock(), logger: Logger(label: "plx-test"))
            return bridge.services.map(\.uuid)
        }
        #expect(services([.heartRateMeasurement]).contains(BluetoothUUID(0x1822)) == false)
        #expect(services([.heartRateMeasurement, .plxContinuousMeasurement]).prefix(2) == [BluetoothUUID(0x180D), BluetoothUUID(0x1822)])
    }
}
