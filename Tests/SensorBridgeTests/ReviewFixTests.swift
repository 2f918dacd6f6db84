import ATT
import BLECore
import BridgeConfiguration
import GATT
import SIGProfiles
import Sensors
import Synchronization
import Testing
import TestSupport
@testable import SensorBridge

/// A value a full queue refused is not taken for sent: fault values and changes go again.
@Suite struct RefusedUpdateTests {
    let clock = ManualClock()
    let sink = RecordingSink()

    @Test func aRefusedNaNIsSentOnTheNextFailedPoll() throws {
        let publisher = HealthThermometerPublisher(type: .body, interval: .seconds(1), includesIntermediate: false, sink: sink, clock: clock) { _ in }
        sink.accepting.withLock { $0 = false }
        publisher.publish(.failed(Fixtures.measurementError), to: .temperatureMeasurement)
        sink.accepting.withLock { $0 = true }
        publisher.publish(.failed(Fixtures.measurementError), to: .temperatureMeasurement)
        publisher.publish(.failed(Fixtures.measurementError), to: .temperatureMeasurement)
        let values = sink.values(of: HealthThermometerPublisher.measurement)
        #expect(values.count == 1)
        #expect(try TemperatureMeasurement(decoding: values[0]).temperature == .nan)
    }

    @Test func aRefusedUnknownAndARefusedBatteryLevelGoAgain() {
        let ess = EnvironmentalSensingPublisher(published: [.humidity], intervals: [.humidity: .seconds(1)], sink: sink, clock: clock)
        let battery = BatteryPublisher(sink: sink)
        sink.accepting.withLock { $0 = false }
        ess.publish(.failed(Fixtures.measurementError), to: .humidity)
        battery.publish(.measured(Measurement(batteryPercent: 80)), to: .batteryLevel)
        sink.accepting.withLock { $0 = true }
        ess.publish(.failed(Fixtures.measurementError), to: .humidity)
        ess.publish(.failed(Fixtures.measurementError), to: .humidity)
        battery.publish(.measured(Measurement(batteryPercent: 80)), to: .batteryLevel)
        battery.publish(.measured(Measurement(batteryPercent: 80)), to: .batteryLevel)
        #expect(sink.values(of: CharacteristicID("environmental-sensing.humidity")) == [[0xFF, 0xFF]])
        #expect(sink.values(of: BatteryPublisher.level) == [[80]])
    }

    @Test func aOneSecondTriggerOnAFastPollFiresOncePerSecondNotTwice() {
        let ess = EnvironmentalSensingPublisher(published: [.humidity], intervals: [.humidity: .milliseconds(100)], sink: sink, clock: clock)
        for _ in 0..<30 {
            ess.publish(.measured(Measurement(humidity: 45)), to: .humidity)
            clock.advance(by: .milliseconds(100))
        }
        // 3 s of 100 ms polls with the default 1 s fixed-interval trigger: at 0, 1 and 2 s.
        #expect(sink.values(of: CharacteristicID("environmental-sensing.humidity")).count == 3)
    }
}

@Suite struct ReopeningSourceTests {
    /// Counts opens; every source it opens fails its reads while `failing` is set.
    final class Opener: Sendable {
        let opens = Mutex(0)
        let failing = Mutex(true)
        let clock = ManualClock()

        func open() -> any SensorSource {
            opens.withLock { $0 += 1 }
            let failing = self.failing.withLock { $0 }
            return ScriptedSource(clock: clock, [failing ? .failure(Fixtures.measurementError) : .success(Measurement(temperature: 20))])
        }
    }

    @Test func aSourceThatFailsIsClosedAndOpenedAgainOnTheNextRead() throws {
        let opener = Opener()
        let source = ReopeningSource { () throws(SensorError) in opener.open() }
        #expect(throws: SensorError.self) { try source.read() }
        #expect(throws: SensorError.self) { try source.read() }
        #expect(opener.opens.withLock { $0 } == 2)
        opener.failing.withLock { $0 = false }
        #expect(try source.read().temperature == 20)
        #expect(try source.read().temperature == 20)
        #expect(opener.opens.withLock { $0 } == 3)
    }

    @Test func noSignalKeepsTheSourceAndAClosedSourceNeverOpensAgain() throws {
        let opens = Mutex(0)
        let clock = ManualClock()
        let source = ReopeningSource { () throws(SensorError) in
            opens.withLock { $0 += 1 }
            return ScriptedSource(clock: clock, [.failure(.noSignal(sensor: "max30102", cause: .noHeartbeat(seconds: 3)))])
        }
        #expect(throws: SensorError.self) { try source.read() }
        #expect(throws: SensorError.self) { try source.read() }
        #expect(opens.withLock { $0 } == 1)
        source.close()
        #expect(throws: SensorError.self) { try source.read() }
        #expect(opens.withLock { $0 } == 1)
    }
}
