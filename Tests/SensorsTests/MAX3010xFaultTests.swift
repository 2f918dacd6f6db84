import Testing
@testable import Sensors

/// MAX3010x: a FIFO overflow is a gap in time, ambient light is reported, no finger is a state.
@Suite struct MAX3010xFaultTests {
    func makeMonitor(bpm: Double) throws -> (SimulatedSensorClock, SimulatedMAX3010x, MAX3010x, PPGHeartRateMonitor) {
        let clock = SimulatedSensorClock()
        let bus = SimulatedI2CBus()
        let ppg = SyntheticPPG(beatsPerMinute: bpm, duration: 120, noise: 0.02, rrVariability: 0)
        let chip = SimulatedMAX3010x(clock: clock) { t in (ppg.value(at: t) * 0.8, ppg.value(at: t)) }
        bus.attach(chip, at: 0x57)
        let sensor = MAX3010x(bus: bus, clock: clock)
        try sensor.configure()
        return (clock, chip, sensor, PPGHeartRateMonitor(sensor: sensor))
    }

    @Test func intervalSpanningAFIFOOverflowIsNotReported() throws {
        // 72 BPM: 833 ms. Polling 500 ms apart at 100 Hz loses 18 samples each time; counted as
        // contiguous they would shorten an interval to about 653 ms, inside the acceptance window.
        let (clock, _, _, monitor) = try makeMonitor(bpm: 72)
        var intervals: [Double] = []
        for poll in 0..<200 {
            clock.advance(milliseconds: poll % 25 == 24 ? 500 : 200)
            try monitor.poll()
            intervals += try monitor.reading().rrIntervalsMilliseconds
        }
        #expect(monitor.lostSamples == 8 * 18)
        #expect(intervals.count > 20)
        for interval in intervals { #expect(abs(interval - 833.3) < 40, "interval \(interval) ms") }
    }

    @Test func detectorAdvancesItsClockOverLostSamples() {
        var detector = BeatDetector(sampleRate: 100)
        let ppg = SyntheticPPG(beatsPerMinute: 60, duration: 40, rrVariability: 0)
        var beats: [BeatDetector.Beat] = []
        var index = 0
        while index < 4000 {
            if let beat = detector.process(ppg.value(at: Double(index) / 100)) { beats.append(beat) }
            index += 1
            if index % 700 == 0 {
                if let beat = detector.skipLostSamples(30) { beats.append(beat) }
                index += 30
            }
        }
        let intervals = beats.compactMap(\.rrMilliseconds)
        #expect(intervals.count > 20)
        for interval in intervals { #expect(abs(interval - 1000) < 30, "interval \(interval) ms") }
        // The detector's time moved on with the lost samples: every beat stays on the signal's 1 s
        // grid (without the skip each gap would shift the later beats by 0.3 s).
        let first = beats.first?.time ?? 0
        for beat in beats {
            let offset = beat.time - first
            #expect(abs(offset - offset.rounded()) < 0.05, "beat at \(beat.time) s")
        }
    }

    @Test func ambientLightOverflowIsReported() throws {
        let (clock, chip, sensor, monitor) = try makeMonitor(bpm: 70)
        clock.advance(milliseconds: 200)
        chip.setAmbientLightOverflow(true)
        clock.advance(milliseconds: 100)
        #expect(try sensor.readFIFO().ambientLightOverflow)
        clock.advance(milliseconds: 100)
        try monitor.poll()
        #expect(throws: SensorError.noSignal(sensor: "MAX30102", cause: .ambientLightOverflow)) {
            try monitor.reading()
        }
        chip.setAmbientLightOverflow(false)
        clock.advance(milliseconds: 200)
        try monitor.poll()
        #expect(try monitor.reading().contact == .detected)
    }

    @Test func noFingerIsNoContact() throws {
        let (clock, chip, _, monitor) = try makeMonitor(bpm: 70)
        chip.setWaveform { _ in (1_000, 1_500) }
        clock.advance(milliseconds: 300)
        try monitor.poll()
        #expect(try monitor.reading() == HeartRateReading(beatsPerMinute: nil, rrIntervalsMilliseconds: [], contact: .notDetected))
    }
}
