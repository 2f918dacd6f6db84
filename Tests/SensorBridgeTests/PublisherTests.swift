import ATT
import BLECore
import BridgeConfiguration
import GATT
@testable import Peripheral
import SIGProfiles
import Sensors
import Testing
import TestSupport
@testable import SensorBridge

@Suite struct HeartRatePublisherTests {
    let clock = ManualClock()
    let sink = RecordingSink()

    func heart(_ bpm: Double?, rr: [Double], contact: SensorContact = .detected) -> PollOutcome {
        .measured(Measurement(heartRate: HeartRateReading(beatsPerMinute: bpm, rrIntervalsMilliseconds: rr, contact: contact)))
    }

    @Test func intervalsThatDoNotFitGoInTheNextNotificationOldestFirst() throws {
        let publisher = HeartRatePublisher(location: .finger, sink: sink, clock: clock)
        // 1000 ms = 1024/1024 s; 12 intervals, 9 fit in 20 octets after flags and an 8-bit rate.
        let intervals = (0..<12).map { 1000.0 + Double($0) * 1000 / 1024 }
        publisher.publish(heart(60, rr: intervals), to: .heartRateMeasurement)
        clock.advance(by: .milliseconds(250))
        publisher.publish(heart(61, rr: [1000]), to: .heartRateMeasurement)
        let values = sink.values(of: HeartRatePublisher.measurement)
        #expect(values.count == 2)
        let first = try HeartRateMeasurement(decoding: values[0])
        let second = try HeartRateMeasurement(decoding: values[1])
        #expect(first.rrIntervals == (0..<9).map { 1024 + UInt16($0) })
        #expect(second.rrIntervals == [1033, 1034, 1035, 1024])
        #expect(second.heartRate == 61)
        #expect(second.sensorContact == .detected)
    }

    @Test func noFingerIsContactNotDetectedOnceASecondNotAnError() throws {
        let publisher = HeartRatePublisher(location: .finger, sink: sink, clock: clock)
        publisher.publish(.noSignal(.noHeartbeat(seconds: 3)), to: .heartRateMeasurement)
        clock.advance(by: .milliseconds(250))
        publisher.publish(.noSignal(.noHeartbeat(seconds: 3)), to: .heartRateMeasurement)
        clock.advance(by: .seconds(1))
        publisher.publish(.noSignal(.noHeartbeat(seconds: 3)), to: .heartRateMeasurement)
        let values = sink.values(of: HeartRatePublisher.measurement)
        #expect(values.count == 2)
        let decoded = try HeartRateMeasurement(decoding: values[0])
        #expect(decoded.sensorContact == .notDetected)
        #expect(decoded.heartRate == 0)
    }

    @Test func aNoContactReadingSetsTheContactBitsOnceASecondAndStillCollectingSendsNothing() throws {
        let publisher = HeartRatePublisher(location: .finger, sink: sink, clock: clock)
        publisher.publish(heart(nil, rr: [], contact: .detected), to: .heartRateMeasurement)
        #expect(sink.values(of: HeartRatePublisher.measurement).isEmpty)
        publisher.publish(heart(nil, rr: [], contact: .notDetected), to: .heartRateMeasurement)
        clock.advance(by: .milliseconds(250))
        publisher.publish(heart(nil, rr: [], contact: .notDetected), to: .heartRateMeasurement)
        clock.advance(by: .seconds(1))
        publisher.publish(heart(nil, rr: [], contact: .notDetected), to: .heartRateMeasurement)
        let values = sink.values(of: HeartRatePublisher.measurement)
        #expect(values.count == 2)
        // Heart Rate Measurement flags bits 1-2 = 0b10: contact supported, not detected; rate unknown (0).
        let decoded = try HeartRateMeasurement(decoding: values[0])
        #expect(values[0][0] & 0x06 == 0x04)
        #expect(decoded.sensorContact == .notDetected)
        #expect(decoded.heartRate == 0)
    }

    @Test func aFailedSensorSendsNothingRatherThanAnOldRate() {
        let publisher = HeartRatePublisher(location: .finger, sink: sink, clock: clock)
        publisher.publish(heart(70, rr: [850]), to: .heartRateMeasurement)
        clock.advance(by: .seconds(2))
        publisher.publish(.failed(Fixtures.measurementError), to: .heartRateMeasurement)
        #expect(sink.values(of: HeartRatePublisher.measurement).count == 1)
    }

    @Test func aRefusedUpdateKeepsItsIntervalsForTheNextOne() throws {
        let publisher = HeartRatePublisher(location: .finger, sink: sink, clock: clock)
        sink.accepting.withLock { $0 = false }
        publisher.publish(heart(70, rr: [1000]), to: .heartRateMeasurement)
        sink.accepting.withLock { $0 = true }
        publisher.publish(heart(71, rr: [500]), to: .heartRateMeasurement)
        let values = sink.values(of: HeartRatePublisher.measurement)
        #expect(try HeartRateMeasurement(decoding: values[0]).rrIntervals == [1024, 512])
    }

    @Test func controlPointAcceptsResetAndRejectsOtherValuesWithTheServiceError() {
        let publisher = HeartRatePublisher(location: .finger, sink: sink, clock: clock)
        let reset = WriteRequest(characteristic: HeartRatePublisher.controlPoint, descriptor: nil, value: [0x01])
        let other = WriteRequest(characteristic: HeartRatePublisher.controlPoint, descriptor: nil, value: [0x02])
        #expect(publisher.check(reset) == nil)
        #expect(publisher.check(other) == ATTErrorCode(0x80))
        #expect(publisher.check(WriteRequest(characteristic: HeartRatePublisher.controlPoint, descriptor: nil, value: [])) == ATTErrorCode(0x80))
    }
}

@Suite struct HealthThermometerPublisherTests {
    let sink = RecordingSink()
    let clock = ManualClock()

    @Test func aSensorPolledFasterThanTheMeasurementIntervalSendsTemperatureMeasurementOncePerInterval() {
        let publisher = HealthThermometerPublisher(type: .body, interval: .milliseconds(100), includesIntermediate: true, sink: sink, clock: clock) { _ in }
        for _ in 0..<25 {
            publisher.publish(.measured(Measurement(temperature: 36.8)), to: .temperatureMeasurement)
            publisher.publish(.measured(Measurement(temperature: 36.8)), to: .intermediateTemperature)
            clock.advance(by: .milliseconds(100))
        }
        // 2.5 s of 100 ms polls: 2A1C at 0, 1 and 2 s (a 1 s measurement interval), 2A1E on every poll.
        #expect(sink.values(of: HealthThermometerPublisher.measurement).count == 3)
        #expect(sink.values(of: HealthThermometerPublisher.intermediate).count == 25)
    }

    @Test func measurementsAreIndicatedAndAFaultSendsNaNOnce() throws {
        let publisher = HealthThermometerPublisher(type: .body, interval: .seconds(2), includesIntermediate: true, sink: sink, clock: clock) { _ in }
        publisher.publish(.measured(Measurement(temperature: 36.84)), to: .temperatureMeasurement)
        publisher.publish(.measured(Measurement(temperature: 36.84)), to: .intermediateTemperature)
        publisher.publish(.failed(Fixtures.measurementError), to: .temperatureMeasurement)
        publisher.publish(.failed(Fixtures.measurementError), to: .temperatureMeasurement)
        let values = sink.values(of: HealthThermometerPublisher.measurement)
        #expect(values.count == 2)
        #expect(try TemperatureMeasurement(decoding: values[0]).temperature.doubleValue == 36.84)
        #expect(try TemperatureMeasurement(decoding: values[1]).temperature == .nan)
        #expect(sink.values(of: HealthThermometerPublisher.intermediate).count == 1)
        #expect(publisher.updatePolicies[HealthThermometerPublisher.measurement].map { if case .indication = $0 { true } else { false } } == true)
    }

    @Test func temperatureMeasurementsCarryWhenTheyWereTakenAndIntermediateOnesDoNot() throws {
        let stamp = DateTime(year: 2026, month: 11, day: 24, hours: 9, minutes: 30, seconds: 5)
        let publisher = HealthThermometerPublisher(type: .body, interval: .seconds(2), includesIntermediate: true, sink: sink, clock: clock,
                                                   timeStamp: { stamp }) { _ in }
        publisher.publish(.measured(Measurement(temperature: 36.84)), to: .temperatureMeasurement)
        publisher.publish(.measured(Measurement(temperature: 36.84)), to: .intermediateTemperature)
        let measurement = try TemperatureMeasurement(decoding: try #require(sink.values(of: HealthThermometerPublisher.measurement).first))
        #expect(measurement.timeStamp == stamp)
        let intermediate = try TemperatureMeasurement(decoding: try #require(sink.values(of: HealthThermometerPublisher.intermediate).first))
        #expect(intermediate.timeStamp == nil)
        // The wall clock gives a valid date-time here.
        #expect(WallClockTimeStamp.now() != nil)
    }

    @Test func measurementIntervalWritesAreRangeCheckedAndReschedule() throws {
        let intervals = Recorder<Duration>()
        let publisher = HealthThermometerPublisher(type: .body, interval: .seconds(2), includesIntermediate: false, sink: sink, clock: clock) { intervals.append($0) }
        func write(_ seconds: UInt16) -> WriteRequest {
            WriteRequest(characteristic: HealthThermometerPublisher.measurementInterval, descriptor: nil,
                         value: MeasurementInterval(seconds: seconds).encoded)
        }
        #expect(publisher.check(write(0)) == .outOfRange)
        #expect(publisher.check(write(3601)) == .outOfRange)
        #expect(publisher.check(WriteRequest(characteristic: HealthThermometerPublisher.measurementInterval, descriptor: nil, value: [5])) == .invalidAttributeValueLength)
        #expect(publisher.check(write(5)) == nil)
        publisher.apply(write(5))
        #expect(intervals.all == [.seconds(5)])
        #expect(sink.values(of: HealthThermometerPublisher.measurementInterval) == [[5, 0]])
        #expect(try publisher.read(HealthThermometerPublisher.measurementInterval, descriptor: nil).get() == [5, 0])
    }

    @Test func theValidRangeDescriptorSaysOneToThreeThousandSixHundredSeconds() throws {
        let publisher = HealthThermometerPublisher(type: .body, interval: .seconds(2), includesIntermediate: false, sink: sink, clock: clock) { _ in }
        let interval = try #require(publisher.service.characteristics.first { $0.uuid == BluetoothUUID(0x2A21) })
        #expect(interval.properties == [.read, .write, .indicate])
        #expect(interval.descriptors.first?.value == .static([0x01, 0x00, 0x10, 0x0E]))
    }
}

@Suite struct EnvironmentalSensingPublisherTests {
    let clock = ManualClock()
    let sink = RecordingSink()

    func make() -> EnvironmentalSensingPublisher {
        EnvironmentalSensingPublisher(published: [.environmentalTemperature, .humidity, .pressure],
                                      intervals: [.environmentalTemperature: .seconds(1), .humidity: .seconds(1), .pressure: .seconds(5)],
                                      sink: sink, clock: clock)
    }

    let temperature = CharacteristicID("environmental-sensing.es-temperature")
    let humidity = CharacteristicID("environmental-sensing.humidity")
    let pressure = CharacteristicID("environmental-sensing.pressure")

    @Test func theDefaultTriggerNotifiesAtThePollInterval() {
        let publisher = make()
        for _ in 0..<3 {
            publisher.publish(.measured(Measurement(temperature: 21.5, pressure: 101_325)), to: .environmentalTemperature)
            publisher.publish(.measured(Measurement(temperature: 21.5, pressure: 101_325)), to: .pressure)
            clock.advance(by: .seconds(1))
        }
        #expect(sink.values(of: temperature) == Array(repeating: [0x66, 0x08], count: 3))
        // 5 s fixed interval for pressure: only the first of three 1 s polls.
        #expect(sink.values(of: pressure).count == 1)
    }

    @Test func aValueChangedTriggerWrittenByTheClientNotifiesOnlyChanges() throws {
        let publisher = make()
        let trigger = WriteRequest(characteristic: humidity, descriptor: BluetoothUUID(0x290D), value: [0x03])
        #expect(publisher.check(trigger) == nil)
        publisher.apply(trigger)
        for value in [45.0, 45.0, 46.5] {
            publisher.publish(.measured(Measurement(humidity: value)), to: .humidity)
            clock.advance(by: .seconds(1))
        }
        #expect(sink.values(of: humidity).count == 2)
        #expect(try publisher.read(humidity, descriptor: BluetoothUUID(0x290D)).get() == [0x03])
    }

    @Test func unsupportedTriggerConditionsGetConditionNotSupported() {
        let publisher = make()
        #expect(publisher.check(WriteRequest(characteristic: humidity, descriptor: BluetoothUUID(0x290D), value: [0x0A])) == ATTErrorCode(0x81))
        #expect(publisher.check(WriteRequest(characteristic: humidity, descriptor: BluetoothUUID(0x290D), value: [0x01, 0, 0, 0])) == ATTErrorCode(0x81))
        #expect(publisher.check(WriteRequest(characteristic: humidity, descriptor: nil, value: [0x01])) == .writeNotPermitted)
    }

    @Test func aFaultSendsUnknownOnceWhereTheFormatHasItAndReadsSayUnknown() throws {
        let publisher = make()
        publisher.publish(.measured(Measurement(temperature: 21.5)), to: .environmentalTemperature)
        publisher.publish(.failed(Fixtures.measurementError), to: .environmentalTemperature)
        clock.advance(by: .seconds(1))
        publisher.publish(.failed(Fixtures.measurementError), to: .environmentalTemperature)
        publisher.publish(.failed(Fixtures.measurementError), to: .pressure)
        #expect(sink.values(of: temperature) == [[0x66, 0x08], [0x00, 0x80]])
        #expect(sink.values(of: pressure).isEmpty)
        #expect(try publisher.read(temperature, descriptor: nil).get() == [0x00, 0x80])
        #expect(throws: ATTErrorCode.unlikelyError) { try publisher.read(pressure, descriptor: nil).get() }
    }

    @Test func everyCharacteristicHasItsMeasurementAndTriggerDescriptors() throws {
        let publisher = make()
        for characteristic in publisher.service.characteristics {
            #expect(characteristic.descriptors.map(\.uuid) == [BluetoothUUID(0x290C), BluetoothUUID(0x290D)])
            let measurement = try #require(characteristic.descriptors.first?.value.staticBytes)
            #expect(measurement.count == 11)
        }
    }
}

@Suite struct BatteryPublisherTests {
    @Test func levelIsClampedNotifiedOnChangeAndUnreadableAfterAFault() throws {
        let sink = RecordingSink()
        let publisher = BatteryPublisher(sink: sink)
        #expect(throws: ATTErrorCode.unlikelyError) { try publisher.read(BatteryPublisher.level, descriptor: nil).get() }
        publisher.publish(.measured(Measurement(batteryPercent: 103.2)), to: .batteryLevel)
        publisher.publish(.measured(Measurement(batteryPercent: 99.8)), to: .batteryLevel)
        publisher.publish(.measured(Measurement(batteryPercent: 87.4)), to: .batteryLevel)
        #expect(sink.values(of: BatteryPublisher.level) == [[100], [87]])
        #expect(try publisher.read(BatteryPublisher.level, descriptor: nil).get() == [87])
        publisher.publish(.failed(Fixtures.measurementError), to: .batteryLevel)
        #expect(throws: ATTErrorCode.unlikelyError) { try publisher.read(BatteryPublisher.level, descriptor: nil).get() }
    }
}

@Suite struct NoContactStatusTests {
    @Test func noContactIsShownAsNoSignalWithoutAValue() throws {
        let clock = ManualClock()
        let sensor = SensorConfiguration(name: "pulse", driver: .max30102, pollInterval: .milliseconds(200), publish: [.heartRateMeasurement])
        let book = SensorStatusBook(sensors: [sensor], clock: clock)
        book.record(.measured(Measurement(heartRate: HeartRateReading(beatsPerMinute: 70, rrIntervalsMilliseconds: [857], contact: .detected))),
                    sensor: "pulse")
        #expect(try #require(book.status(of: "pulse")).state == .ok)
        let change = book.record(.measured(Measurement(heartRate: HeartRateReading(beatsPerMinute: nil, rrIntervalsMilliseconds: [],
                                                                                    contact: .notDetected))), sensor: "pulse")
        #expect(change?.previous == .ok && change?.current == .noSignal)
        let status = try #require(book.status(of: "pulse"))
        #expect(status.value == nil && status.readings.isEmpty)
        #expect(status.error == "no contact: no finger on the sensor")
    }
}

@Suite struct PausedStatusTests {
    let sensor = SensorConfiguration(name: "cellar", driver: .sht4x, pollInterval: .seconds(1), publish: [.environmentalTemperature])

    @Test func aPauseKeepsTheLastAmbientValueButNotOneFromBeforeAFailure() throws {
        let book = SensorStatusBook(sensors: [sensor], clock: ManualClock())
        book.record(.measured(Measurement(temperature: 12, humidity: 92)), sensor: "cellar")
        book.record(.paused("heater cool-down"), sensor: "cellar")
        let paused = try #require(book.status(of: "cellar"))
        #expect(paused.state == .paused && paused.value == 12 && paused.error == "heater cool-down")
        // After a failure the characteristics hold "unknown", so a pause shows no value either.
        book.record(.failed(Fixtures.measurementError), sensor: "cellar")
        book.record(.paused("heater cool-down"), sensor: "cellar")
        let afterFailure = try #require(book.status(of: "cellar"))
        #expect(afterFailure.state == .paused && afterFailure.value == nil && afterFailure.readings.isEmpty)
        book.record(.measured(Measurement(temperature: 12.5, humidity: 91)), sensor: "cellar")
        #expect(try #require(book.status(of: "cellar")).value == 12.5)
    }
}
