import BLECore
import Foundation

/// A pulse train with known RR-intervals, as a beat-per-pulse receiver would produce.
public struct PulseTrain: Sendable {
    /// Times of the beats in seconds, starting at `start`.
    public let beatTimes: [Double]

    public init(rrIntervalsMilliseconds: [Double], start: Double = 0.5) {
        var times = [start]
        for rr in rrIntervalsMilliseconds { times.append((times.last ?? start) + rr / 1000) }
        beatTimes = times
    }

    /// Rising and falling edges (10 ms pulses) on the monotonic timeline starting at `originNanoseconds`.
    public func edges(originNanoseconds: UInt64) -> [GPIOEdgeEvent] {
        beatTimes.flatMap { time -> [GPIOEdgeEvent] in
            let rise = originNanoseconds.saturatingAdd(UInt64(saturating: time * 1e9))
            return [GPIOEdgeEvent(edge: .rising, timestampNanoseconds: rise),
                    GPIOEdgeEvent(edge: .falling, timestampNanoseconds: rise.saturatingAdd(10_000_000))]
        }
    }
}

/// Synthetic PPG with a known heart rate: each beat is a systolic Gaussian plus a smaller dicrotic
/// wave, subtracted from the DC level (more blood absorbs more light), with optional RR variability,
/// baseline wander (breathing at 0.25 Hz) and white noise.
public struct SyntheticPPG: Sendable {
    public let beatsPerMinute: Double
    public let duration: Double
    public let dc: Double
    public let amplitude: Double
    public let noise: Double
    public let wander: Double
    /// Times of the systolic peaks in seconds.
    public let beatTimes: [Double]
    private let noiseSamples: [Double]
    private let noiseRate = 1000.0

    /// `noise` and `wander` are relative to `amplitude` (0.2 = 20 % of the pulse height).
    /// Out-of-range parameters are clamped rather than trapping or looping forever: the rate to
    /// 10...300 BPM, the duration to 0...3600 s, `rrVariability` to 0...0.5 (NaN counts as 72 BPM,
    /// 0 s and 0 respectively).
    public init(beatsPerMinute: Double, duration: Double, dc: Double = 120_000, amplitude: Double = 1_500,
                noise: Double = 0, wander: Double = 0, rrVariability: Double = 0.02, seed: UInt64 = 1) {
        let beatsPerMinute = beatsPerMinute.isNaN ? 72 : min(300, max(10, beatsPerMinute))
        let duration = duration.isNaN ? 0 : min(3600, max(0, duration))
        let rrVariability = rrVariability.isNaN ? 0 : min(0.5, max(0, rrVariability))
        self.beatsPerMinute = beatsPerMinute
        self.duration = duration
        self.dc = dc
        self.amplitude = amplitude
        self.noise = noise
        self.wander = wander
        var generator = SplitMix64(seed: seed)
        let mean = 60 / beatsPerMinute
        var times: [Double] = []
        var t = 0.3
        while t < duration + 2 {
            times.append(t)
            t += mean * (1 + Double.random(in: -rrVariability...rrVariability, using: &generator))
        }
        beatTimes = times
        let count = Int(saturating: (duration + 2) * noiseRate)
        // Roughly Gaussian noise: the sum of four uniforms.
        noiseSamples = (0..<count).map { _ in
            (0..<4).reduce(0.0) { sum, _ in sum + Double.random(in: -1...1, using: &generator) } / 2
        }
    }

    /// True RR-intervals in ms.
    public var rrIntervalsMilliseconds: [Double] {
        zip(beatTimes.dropFirst(), beatTimes).map { ($0 - $1) * 1000 }
    }

    public func value(at t: Double) -> Double {
        var pulse = 0.0
        // Only nearby beats contribute.
        for beat in beatTimes where abs(beat - t) < 1.5 {
            let rr = 60 / beatsPerMinute
            let sigma = 0.1 * min(rr, 0.8)
            let dt = t - beat
            pulse += exp(-dt * dt / (2 * sigma * sigma))
            let dicrotic = dt - 0.35 * min(rr, 0.9)
            pulse += 0.35 * exp(-dicrotic * dicrotic / (2 * sigma * sigma * 1.5))
        }
        let index = max(0, min(noiseSamples.count - 1, Int(saturating: t * noiseRate)))
        let baseline = wander * amplitude * sin(2 * .pi * 0.25 * t)
        return dc - amplitude * pulse + baseline + noise * amplitude * noiseSamples[index]
    }
}

/// Red and IR from one IR pulse wave, with the red channel scaled so the ratio of ratios
/// R = (AC_red/DC_red)/(AC_ir/DC_ir) is exactly `ratio`: red = redDC − ratio·(redDC/irDC)·(irDC − ir).
/// The SpO2 a ratio-of-ratios oximeter should report then follows from its calibration curve.
public struct OximetryWaveform: Sendable {
    public let ratio: Double
    public let irDC: Double
    public let redDC: Double

    public init(ratio: Double, irDC: Double, redDC: Double) {
        self.ratio = ratio
        self.irDC = irDC
        self.redDC = redDC
    }

    /// `ir` is the IR sample of a wave whose DC level is `irDC`.
    public func sample(ir: Double) -> (red: Double, ir: Double) {
        (redDC - ratio * redDC / irDC * (irDC - ir), ir)
    }
}

/// A linear temperature ramp over time, for scripted temperature sensors.
public struct TemperatureRamp: Sendable {
    public let start: Double
    public let end: Double
    public let seconds: Double

    public init(from start: Double, to end: Double, over seconds: Double) {
        self.start = start
        self.end = end
        self.seconds = seconds
    }

    public func celsius(at t: Double) -> Double {
        guard seconds > 0 else { return end }
        return start + (end - start) * min(1, max(0, t / seconds))
    }
}

/// The finger of the simulated pulse oximeters (the simulated board and `sensor read --simulated`):
/// a steady pulse whose red/IR ratio of ratios is known, so tests can expect the SpO2 the
/// calibration curve gives for it.
public enum SimulatedFinger {
    /// 0.5 maps to 98.757 % on the MAXREFDES117 curve (−45.060·0.25 + 30.354·0.5 + 94.845).
    public static let ratio = 0.5
    static let redDC = 100_000.0

    /// Red and IR in 18-bit counts (MAX30101/MAX30102). With no beat-to-beat variation the wave
    /// repeats every beat, so a few beats evaluated at the phase within the current one serve for
    /// any length of run (and cost a handful of beats per sample, not an hour's).
    public static func steady(beatsPerMinute: Double?) -> @Sendable (Double) -> (red: Double, ir: Double) {
        let bpm = min(220, max(30, beatsPerMinute ?? 72))
        let period = 60 / bpm
        let ppg = SyntheticPPG(beatsPerMinute: bpm, duration: 4 * period, rrVariability: 0)
        let middle = (ppg.beatTimes.first ?? 0.3) + period
        let oximetry = OximetryWaveform(ratio: ratio, irDC: ppg.dc, redDC: redDC)
        return { t in oximetry.sample(ir: ppg.value(at: middle + t.truncatingRemainder(dividingBy: period))) }
    }

    /// The same in the MAX30100's 16-bit counts: both channels scaled by a quarter, so the ratio
    /// (and the SpO2) is unchanged.
    public static func steady16Bit(beatsPerMinute: Double?) -> @Sendable (Double) -> (red: Double, ir: Double) {
        let finger = steady(beatsPerMinute: beatsPerMinute)
        return { t in
            let sample = finger(t)
            return (red: sample.red / 4, ir: sample.ir / 4)
        }
    }
}
