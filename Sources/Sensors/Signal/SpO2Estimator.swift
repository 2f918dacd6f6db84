/// Oxygen saturation from a MAX3010x's red and infrared channels by the ratio of ratios.
///
/// Method: per cardiac cycle (between two consecutive IR dips, located near the beats the
/// `BeatDetector` finds) and per channel, AC = the largest rise above the straight line joining the
/// cycle's two dips (the baseline drift removed, as in Maxim's MAXREFDES117 reference algorithm),
/// DC = the channel's mean over the cycle. R = (AC_red/DC_red) / (AC_ir/DC_ir); the median R of the
/// last five clean cycles goes through `saturation(ratio:)`.
///
/// Calibration: SpO2 = −45.060·R² + 30.354·R + 94.845, the curve Maxim Integrated publishes for
/// the MAXREFDES117# reference design (RD117_ARDUINO `algorithm.h`, from which its `uch_spo2_table`
/// of SpO2 per R×100 was computed). It is a generic curve for that optical design, NOT a calibration
/// of this device: readings are indicative only and this is not a medical device. The curve peaks
/// (99.96 %) at R ≈ 0.337 and is not invertible below it; R is accepted in 0.3…1.15 (≈ 99.9…70 %).
///
/// Gating (a reason instead of a number): no finger (IR DC below the contact threshold), ADC
/// saturation (a sample within 2 % of full scale), too weak a signal (a DC below 1 % of full scale
/// or a perfusion index below 0.05 %), motion (perfusion index above 10 %, or the IR DC moving more
/// than 4 % from one cycle to the next), R outside the curve's range, and beat-to-beat disagreement
/// (coefficient of variation of the recent R above 0.2). Any gated cycle clears the R history, so
/// a number needs three clean cycles in a row again.
///
/// Validation (tests in Tests/SensorsTests/SpO2EstimatorTests.swift): the curve against points of
/// Maxim's published table (R 0.5 → 99, 0.7 → 94, 1.0 → 80); synthetic red/IR pulse waves built
/// with a chosen R (so the expected SpO2 is computed by hand from the curve), with noise and
/// baseline wander; and each gate driven by a signal made to trip it. No recordings of real red/IR
/// pairs with reference saturations were available, so accuracy on a person is not established.
public struct SpO2Estimator: Sendable {
    /// Why no saturation is given.
    public enum Gate: Error, Sendable, Equatable, CustomStringConvertible {
        case noContact
        case saturated
        case signalTooWeak
        case motion
        case ratioOutOfRange(Double)
        case unstableRatio
        /// Fewer than `requiredCycles` clean cycles since the start or the last gated one.
        case acquiring
        /// No cycle completed for `BeatDetector.beatTimeoutSeconds`.
        case noPulse

        public var description: String {
            switch self {
            case .noContact: return "no finger on the sensor"
            case .saturated: return "signal saturated (ADC at full scale): lower the LED current"
            case .signalTooWeak: return "signal too weak (low perfusion or LED too dim)"
            case .motion: return "motion: the light level jumped; keep the finger still"
            case let .ratioOutOfRange(ratio):
                let text = String(Int(saturating: (ratio * 1000).rounded())).paddedMilli
                return "red/IR ratio R = \(text) is outside the calibration curve's range 0.3…1.15"
            case .unstableRatio: return "red/IR ratio disagrees from beat to beat"
            case .acquiring: return "acquiring: waiting for \(SpO2Estimator.requiredCycles) clean beats"
            case .noPulse: return "no pulse found"
            }
        }
    }

    public struct Estimate: Sendable, Equatable {
        /// SpO2 in percent from the calibration curve, at most 100.
        public var percent: Double
        /// The median red/IR ratio of ratios it came from.
        public var ratio: Double
        /// IR perfusion index AC/DC in percent (the PLX Pulse Amplitude Index).
        public var perfusionIndexPercent: Double

        public init(percent: Double, ratio: Double, perfusionIndexPercent: Double) {
            self.percent = percent
            self.ratio = ratio
            self.perfusionIndexPercent = perfusionIndexPercent
        }
    }

    public static let requiredCycles = 3
    static let historyLength = 5
    public static let validRatios: ClosedRange<Double> = 0.3...1.15
    static let minimumPerfusionIndex = 0.0005
    static let maximumPerfusionIndex = 0.10
    static let maximumDCStep = 0.04
    static let maximumRatioVariation = 0.2
    static let saturationFraction = 0.98
    static let minimumDCFraction = 0.01

    /// The MAXREFDES117# curve (see the type's comment), capped at 100 %.
    public static func saturation(ratio: Double) -> Double {
        min(100, -45.060 * ratio * ratio + 30.354 * ratio + 94.845)
    }

    public let sampleRate: Double
    /// ADC full scale in counts (18-bit: 262 143).
    public let fullScale: Double
    /// IR DC below this means no finger (the beat detector's finger threshold).
    public let contactThreshold: Double

    private var smoothRed: Biquad
    private var smoothIR: Biquad
    private var irLevel: Double?
    private let levelAlpha: Double
    /// Smoothed samples since `bufferStart` (absolute sample index).
    private var red: [Double] = []
    private var ir: [Double] = []
    // Absolute sample indices are Int64 so a 32-bit build (armhf) does not trap after 2^31 samples.
    private var bufferStart: Int64 = 0
    private var sampleIndex: Int64 = 0
    private var lastSaturatedIndex = Int64.min
    private var previousDip: Int64?
    private var previousDC: Double?
    private var ratios: [Double] = []
    private var perfusion: [Double] = []
    private var lastCycleEnd: Int64?
    private var lastGate: Gate? = .acquiring

    public init(sampleRate: Double, fullScale: Double = 262_143, contactThreshold: Double = 30_000) {
        self.sampleRate = sampleRate
        self.fullScale = fullScale
        self.contactThreshold = contactThreshold
        smoothRed = Biquad.lowPass(cutoff: 5, sampleRate: sampleRate)
        smoothIR = Biquad.lowPass(cutoff: 5, sampleRate: sampleRate)
        levelAlpha = 1 / (1.5 * sampleRate)
    }

    /// Forgets every cycle (after a gap in the samples). Sample counting continues, so beat times
    /// from a detector fed the same samples still line up.
    public mutating func reset() {
        smoothRed.reset()
        smoothIR.reset()
        irLevel = nil
        red.removeAll()
        ir.removeAll()
        bufferStart = sampleIndex
        previousDip = nil
        previousDC = nil
        ratios.removeAll()
        perfusion.removeAll()
        lastCycleEnd = nil
        lastGate = .acquiring
    }

    /// Feeds one sample pair (counts), the same samples in the same order as the beat detector.
    public mutating func process(red rawRed: Double, ir rawIR: Double) {
        if rawRed >= Self.saturationFraction * fullScale || rawIR >= Self.saturationFraction * fullScale {
            lastSaturatedIndex = sampleIndex
        }
        if red.isEmpty {
            // Start the filters at the signal's level instead of ringing up from zero.
            for _ in 0..<max(0, Int(saturating: sampleRate)) {
                _ = smoothRed.process(rawRed)
                _ = smoothIR.process(rawIR)
            }
        }
        red.append(smoothRed.process(rawRed))
        ir.append(smoothIR.process(rawIR))
        irLevel = irLevel.map { $0 + (rawIR - $0) * levelAlpha } ?? rawIR
        sampleIndex += 1
        // Keep about two longest cycles plus margin.
        let keep = max(1, Int(saturating: sampleRate * 5))
        if red.count > 2 * keep {
            let drop = red.count - keep
            red.removeFirst(drop)
            ir.removeFirst(drop)
            bufferStart += Int64(drop)
        }
    }

    /// A beat at `time` seconds since the first sample (the `BeatDetector.Beat.time` scale).
    public mutating func beat(at time: Double) {
        // The bound keeps the conversion below exact and far from Int64's limits.
        guard time.isFinite, time >= 0, time * sampleRate < 1e15 else { return }
        let center = Int64((time * sampleRate).rounded())
        let low = max(bufferStart, center - Int64(Int(saturating: 0.25 * sampleRate)))
        let high = min(sampleIndex - 1, center + Int64(Int(saturating: 0.1 * sampleRate)))
        guard low <= high else { return }
        // The dip: the IR minimum near the beat (the detector times the filtered wave, which lags).
        // low ≥ bufferStart and high < sampleIndex, so every offset is inside the buffer.
        var dip = low
        for index in low...high where ir[Int(index - bufferStart)] < ir[Int(dip - bufferStart)] { dip = index }
        defer { previousDip = dip }
        guard let start = previousDip, start >= bufferStart else { return }
        let length = Double(dip - start) / sampleRate * 1000
        guard length >= BeatDetector.minimumRRMilliseconds, length <= BeatDetector.maximumRRMilliseconds else { return }
        lastCycleEnd = dip
        if let gate = evaluateCycle(from: Int(start - bufferStart), to: Int(dip - bufferStart), startIndex: start) {
            lastGate = gate
            ratios.removeAll()
            perfusion.removeAll()
        } else if ratios.count >= Self.requiredCycles {
            // Until then the last reason stays: it says why the estimate is being rebuilt.
            lastGate = nil
        }
    }

    private mutating func evaluateCycle(from start: Int, to end: Int, startIndex: Int64) -> Gate? {
        let (acRed, dcRed) = Self.acdc(red, start, end)
        let (acIR, dcIR) = Self.acdc(ir, start, end)
        let dcStep = previousDC.map { abs(dcIR - $0) / dcIR } ?? 0
        previousDC = dcIR
        if dcIR < contactThreshold { return .noContact }
        if lastSaturatedIndex >= startIndex { return .saturated }
        if min(dcRed, dcIR) < Self.minimumDCFraction * fullScale { return .signalTooWeak }
        let piRed = acRed / dcRed, piIR = acIR / dcIR
        if max(piRed, piIR) > Self.maximumPerfusionIndex || dcStep > Self.maximumDCStep { return .motion }
        if min(piRed, piIR) < Self.minimumPerfusionIndex { return .signalTooWeak }
        let ratio = piRed / piIR
        ratios.append(ratio)
        perfusion.append(piIR)
        if ratios.count > Self.historyLength {
            ratios.removeFirst()
            perfusion.removeFirst()
        }
        return nil
    }

    /// AC: the largest rise above the line joining the cycle's ends; DC: the mean.
    private static func acdc(_ x: [Double], _ start: Int, _ end: Int) -> (ac: Double, dc: Double) {
        let span = Double(end - start)
        var ac = 0.0, sum = 0.0
        for index in start...end {
            let line = x[start] + (x[end] - x[start]) * Double(index - start) / span
            ac = max(ac, x[index] - line)
            sum += x[index]
        }
        return (ac, sum / Double(end - start + 1))
    }

    /// The saturation now, or why there is none.
    public var current: Result<Estimate, Gate> {
        if let level = irLevel, level < contactThreshold { return .failure(.noContact) }
        if irLevel == nil { return .failure(.acquiring) }
        let now = sampleIndex
        let lastEnd = lastCycleEnd ?? bufferStart
        if Double(now - lastEnd) / sampleRate > BeatDetector.beatTimeoutSeconds + 0.5 {
            return .failure(lastCycleEnd == nil ? .acquiring : .noPulse)
        }
        if let gate = lastGate, ratios.count < Self.requiredCycles {
            return .failure(gate)
        }
        guard ratios.count >= Self.requiredCycles else { return .failure(.acquiring) }
        let ratio = Self.median(ratios)
        guard Self.validRatios.contains(ratio) else { return .failure(.ratioOutOfRange(ratio)) }
        let mean = ratios.reduce(0, +) / Double(ratios.count)
        let variance = ratios.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(ratios.count)
        guard variance.squareRoot() / mean <= Self.maximumRatioVariation else { return .failure(.unstableRatio) }
        return .success(Estimate(percent: Self.saturation(ratio: ratio), ratio: ratio,
                                 perfusionIndexPercent: Self.median(perfusion) * 100))
    }

    private static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}

extension String {
    /// "512" → "0.512", "1150" → "1.150": thousandths as a decimal without Foundation formatting.
    fileprivate var paddedMilli: String {
        let digits = count < 4 ? String(repeating: "0", count: 4 - count) + self : self
        return String(digits.dropLast(3)) + "." + String(digits.suffix(3))
    }
}
