import Foundation
import Testing
@testable import Sensors

/// Feeds synthetic red/IR to a detector and an estimator as `PPGHeartRateMonitor` does.
struct OximetryRun {
    var detector: BeatDetector
    var estimator: SpO2Estimator
    let rate: Double
    private var index = 0

    init(rate: Double = 100) {
        self.rate = rate
        detector = BeatDetector(sampleRate: rate)
        estimator = SpO2Estimator(sampleRate: rate)
    }

    mutating func run(seconds: Double, _ wave: (Double) -> (red: Double, ir: Double)) {
        for _ in 0..<Int(seconds * rate) {
            let (red, ir) = wave(Double(index) / rate)
            index += 1
            estimator.process(red: red, ir: ir)
            if let beat = detector.process(ir) { estimator.beat(at: beat.time) }
        }
    }
}

@Suite struct SpO2CurveTests {
    /// Maxim's RD117_ARDUINO algorithm.h tabulates the curve as uch_spo2_table[R×100]; entries 50, 70
    /// and 100 are 99, 94 and 80. By hand: R 0.5 → −11.265 + 15.177 + 94.845 = 98.757;
    /// R 0.7 → −22.0794 + 21.2478 + 94.845 = 94.0134; R 1.0 → −45.060 + 30.354 + 94.845 = 80.139.
    @Test func matchesPublishedPoints() {
        #expect(abs(SpO2Estimator.saturation(ratio: 0.5) - 98.757) < 1e-9)
        #expect(abs(SpO2Estimator.saturation(ratio: 0.7) - 94.0134) < 1e-9)
        #expect(abs(SpO2Estimator.saturation(ratio: 1.0) - 80.139) < 1e-9)
        for (ratio, table) in [(0.5, 99.0), (0.7, 94.0), (1.0, 80.0)] {
            #expect(SpO2Estimator.saturation(ratio: ratio).rounded() == table)
        }
        // The vertex (R ≈ 0.337, 99.96 %) stays under 100.
        #expect(SpO2Estimator.saturation(ratio: 0.337) <= 100)
    }
}

@Suite struct SpO2EstimatorTests {
    /// R = 0.5 by construction → 98.757 % (see SpO2CurveTests). IR PI = 1 500/120 000 ≈ 1.25 %.
    @Test func knownRatioGivesTheCurveValue() throws {
        let ppg = SyntheticPPG(beatsPerMinute: 72, duration: 30, noise: 0.03)
        let oximetry = OximetryWaveform(ratio: 0.5, irDC: ppg.dc, redDC: 90_000)
        var run = OximetryRun()
        run.run(seconds: 30) { oximetry.sample(ir: ppg.value(at: $0)) }
        let estimate = try run.estimator.current.get()
        #expect(abs(estimate.ratio - 0.5) < 0.02, "R \(estimate.ratio)")
        #expect(abs(estimate.percent - 98.757) < 0.5, "SpO2 \(estimate.percent)")
        #expect(estimate.perfusionIndexPercent > 0.8 && estimate.perfusionIndexPercent < 2)
    }

    /// R = 0.9 → −36.4986 + 27.3186 + 94.845 = 85.665 %, with breathing wander and more noise, at 200 Hz.
    @Test func lowerSaturationWithWander() throws {
        let ppg = SyntheticPPG(beatsPerMinute: 95, duration: 30, noise: 0.08, wander: 0.5, seed: 3)
        let oximetry = OximetryWaveform(ratio: 0.9, irDC: ppg.dc, redDC: 110_000)
        var run = OximetryRun(rate: 200)
        run.run(seconds: 30) { oximetry.sample(ir: ppg.value(at: $0)) }
        let estimate = try run.estimator.current.get()
        #expect(abs(estimate.percent - 85.665) < 1.5, "SpO2 \(estimate.percent), R \(estimate.ratio)")
    }

    @Test func acquiringUntilThreeCleanCycles() {
        let ppg = SyntheticPPG(beatsPerMinute: 60, duration: 10)
        let oximetry = OximetryWaveform(ratio: 0.5, irDC: ppg.dc, redDC: 100_000)
        var run = OximetryRun()
        #expect(run.estimator.current == .failure(.acquiring))
        run.run(seconds: 2.5) { oximetry.sample(ir: ppg.value(at: $0)) }
        #expect(run.estimator.current == .failure(.acquiring))
        run.run(seconds: 6) { oximetry.sample(ir: ppg.value(at: $0)) }
        #expect((try? run.estimator.current.get()) != nil)
    }

    @Test func noFinger() {
        var run = OximetryRun()
        run.run(seconds: 3) { _ in (red: 900, ir: 1_200) }
        #expect(run.estimator.current == .failure(.noContact))
    }

    @Test func saturatedADC() {
        // IR DC so high the pulse troughs clip at the 18-bit full scale (262 143).
        let ppg = SyntheticPPG(beatsPerMinute: 72, duration: 20, dc: 258_000, amplitude: 4_000)
        let oximetry = OximetryWaveform(ratio: 0.5, irDC: ppg.dc, redDC: 100_000)
        var run = OximetryRun()
        run.run(seconds: 20) { t in
            let (red, ir) = oximetry.sample(ir: ppg.value(at: t) + 3_000)
            return (red, min(262_143, ir))
        }
        #expect(run.estimator.current == .failure(.saturated))
    }

    @Test func weakPulse() {
        // IR PI 20/120 000 ≈ 0.017 % < 0.05 %. The detector still finds the clean beats.
        let ppg = SyntheticPPG(beatsPerMinute: 72, duration: 20, amplitude: 20)
        let oximetry = OximetryWaveform(ratio: 0.5, irDC: ppg.dc, redDC: 100_000)
        var run = OximetryRun()
        run.run(seconds: 20) { oximetry.sample(ir: ppg.value(at: $0)) }
        #expect(run.estimator.current == .failure(.signalTooWeak))
    }

    @Test func motionStepsTheLightLevel() {
        // The finger presses and lifts every 1.7 s: IR DC steps by 10 %.
        let ppg = SyntheticPPG(beatsPerMinute: 72, duration: 20)
        let oximetry = OximetryWaveform(ratio: 0.5, irDC: ppg.dc, redDC: 100_000)
        var run = OximetryRun()
        run.run(seconds: 20) { t in
            let (red, ir) = oximetry.sample(ir: ppg.value(at: t))
            let press = Int(t / 1.7) % 2 == 0 ? 1.0 : 1.1
            return (red * press, ir * press)
        }
        #expect(run.estimator.current == .failure(.motion))
    }

    @Test func ratioOutsideTheCurve() {
        // R = 1.6 is beyond 1.15, where the curve would read 20.9 %.
        let ppg = SyntheticPPG(beatsPerMinute: 72, duration: 20)
        let oximetry = OximetryWaveform(ratio: 1.6, irDC: ppg.dc, redDC: 100_000)
        var run = OximetryRun()
        run.run(seconds: 20) { oximetry.sample(ir: ppg.value(at: $0)) }
        guard case let .failure(.ratioOutOfRange(ratio)) = run.estimator.current else {
            Issue.record("expected ratioOutOfRange, got \(run.estimator.current)")
            return
        }
        #expect(abs(ratio - 1.6) < 0.05)
        #expect(SpO2Estimator.Gate.ratioOutOfRange(1.6).description
                == "red/IR ratio R = 1.600 is outside the calibration curve's range 0.3…1.15")
    }

    @Test func ratioSwingingBetweenBeats() {
        // R at the systoles swings 1.1, 0.7, 0.3, 0.7, … (a 4 s cosine). A cycle spans two systoles,
        // so the cycle ratios alternate about 0.9 and 0.5 pairwise: CV ≈ 0.26–0.3 > 0.2.
        let ppg = SyntheticPPG(beatsPerMinute: 60, duration: 30, rrVariability: 0)
        var run = OximetryRun()
        run.run(seconds: 30) { t in
            let ratio = 0.7 + 0.4 * cos(Double.pi * (t - 0.3) / 2)
            return OximetryWaveform(ratio: ratio, irDC: ppg.dc, redDC: 100_000).sample(ir: ppg.value(at: t))
        }
        #expect(run.estimator.current == .failure(.unstableRatio))
    }

    @Test func pulseStopsThenResetStartsOver() throws {
        let ppg = SyntheticPPG(beatsPerMinute: 72, duration: 20)
        let oximetry = OximetryWaveform(ratio: 0.5, irDC: ppg.dc, redDC: 100_000)
        var run = OximetryRun()
        run.run(seconds: 10) { oximetry.sample(ir: ppg.value(at: $0)) }
        #expect((try? run.estimator.current.get()) != nil)
        // A flat finger (no pulse) for 5 s.
        run.run(seconds: 5) { _ in oximetry.sample(ir: ppg.dc) }
        #expect(run.estimator.current == .failure(.noPulse))
        run.estimator.reset()
        #expect(run.estimator.current == .failure(.acquiring))
    }

    @Test func gateMessagesSayWhy() {
        #expect(SpO2Estimator.Gate.signalTooWeak.description == "signal too weak (low perfusion or LED too dim)")
        #expect(SpO2Estimator.Gate.motion.description.hasPrefix("motion"))
        #expect(SpO2Estimator.Gate.noContact.description == "no finger on the sensor")
    }
}

@Suite struct PPGOximetryMonitorTests {
    /// The simulated chip in SpO2 mode with R = 0.5 → 98.757 %; in heart-rate mode there is no SpO2.
    @Test func monitorReportsSaturationInSpO2ModeOnly() throws {
        let clock = SimulatedSensorClock()
        let bus = SimulatedI2CBus()
        let ppg = SyntheticPPG(beatsPerMinute: 70, duration: 60, noise: 0.03)
        let oximetry = OximetryWaveform(ratio: 0.5, irDC: ppg.dc, redDC: 95_000)
        bus.attach(SimulatedMAX3010x(clock: clock) { oximetry.sample(ir: ppg.value(at: $0)) }, at: 0x57)
        let sensor = MAX3010x(bus: bus, clock: clock)
        try sensor.configure()
        let monitor = PPGHeartRateMonitor(sensor: sensor)
        for _ in 0..<75 {
            clock.advance(milliseconds: 200)
            try monitor.poll()
        }
        let estimate = try #require(try monitor.oxygenSaturation()?.get())
        #expect(abs(estimate.percent - 98.757) < 0.5)

        let hrSensor = MAX3010x(bus: bus, configuration: .init(mode: .heartRate), clock: clock)
        try hrSensor.configure()
        #expect(PPGHeartRateMonitor(sensor: hrSensor).oxygenSaturation() == nil)
    }

    @Test func overflowResetsTheEstimate() throws {
        let clock = SimulatedSensorClock()
        let bus = SimulatedI2CBus()
        let ppg = SyntheticPPG(beatsPerMinute: 70, duration: 60)
        let oximetry = OximetryWaveform(ratio: 0.5, irDC: ppg.dc, redDC: 95_000)
        bus.attach(SimulatedMAX3010x(clock: clock) { oximetry.sample(ir: ppg.value(at: $0)) }, at: 0x57)
        let sensor = MAX3010x(bus: bus, clock: clock)
        try sensor.configure()
        let monitor = PPGHeartRateMonitor(sensor: sensor)
        for _ in 0..<50 {
            clock.advance(milliseconds: 200)
            try monitor.poll()
        }
        #expect((try? monitor.oxygenSaturation()?.get()) != nil)
        clock.advance(milliseconds: 1_000)  // 100 samples due, the FIFO holds 32: a gap
        try monitor.poll()
        #expect(monitor.oxygenSaturation() == .failure(.acquiring))
    }
}
