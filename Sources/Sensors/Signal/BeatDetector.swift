/// Finds heart beats in a PPG (photoplethysmogram) stream from a MAX3010x.
///
/// Pipeline: slow DC tracker (also the finger-present signal) → subtract DC → 0.5 Hz high-pass
/// twice (baseline wander, breathing) → 4 Hz low-pass (noise; 4 Hz passes 220 BPM) → invert, because
/// absorbed light peaks at systole so the raw count dips → local maxima above an adaptive threshold
/// (55 % of the recent peak level, decaying while no beat is seen) outside a refractory period; soon
/// after a beat only a comparably high peak counts (diastolic waves). Checked against HeartPy's
/// recordings and peak detector by Tests/Interop/bench_heartpy.py.
public struct BeatDetector: Sendable {
    public struct Beat: Sendable, Equatable {
        /// Time of the systolic peak in seconds since the first sample (sub-sample interpolated).
        public var time: Double
        /// Interval from the previous accepted beat, if it was plausible.
        public var rrMilliseconds: Double?

        /// The RR-interval in 1/1024 s, the Heart Rate Measurement characteristic's unit.
        public var rr1024: UInt16? {
            rrMilliseconds.map { UInt16(saturating: ($0 * 1.024).rounded()) }
        }
    }

    public let sampleRate: Double
    /// Minimum DC level (counts) meaning a finger covers the sensor.
    public let fingerThreshold: Double
    public static let minimumRRMilliseconds = 60_000.0 / 220
    public static let maximumRRMilliseconds = 60_000.0 / 30
    /// No beat for this long (with a finger present) means the rate is no longer known: a rate
    /// computed from older intervals would be a stale number.
    public static let beatTimeoutSeconds = 3.0

    private var dc: Double?
    private let dcAlpha: Double
    private var highPass: Biquad
    private var highPass2: Biquad
    /// Lowest filtered value since the last beat: peaks are measured from it (prominence), so residual
    /// baseline wander does not move the threshold.
    private var trough = Double.infinity
    private var lowPass: Biquad
    private var history: (Double, Double, Double) = (0, 0, 0)
    /// Int64 so a 32-bit build (armhf) does not trap after 2^31 samples (248 days at 100 Hz).
    private var sampleIndex: Int64 = 0
    private var settleSamples: Int
    private var peakEstimate = 0.0
    private var lastPeakTime: Double?
    private var lastBeatTime: Double?
    private var recentRR: [Double] = []
    private var consecutiveRejections = 0
    private var pending: (time: Double, value: Double)?
    /// Filtered level of the last accepted beat.
    private var lastPeakValue: Double?
    private var troughSinceCandidate = Double.infinity
    /// Samples were lost since the last accepted beat: the next interval spans the gap and is not an RR.
    private var gapSinceLastBeat = false
    public private(set) var fingerPresent = false
    /// Signal time when the finger was last placed, the reference before the first beat.
    private var presentSince = 0.0

    public init(sampleRate: Double, fingerThreshold: Double = 30_000) {
        self.sampleRate = sampleRate
        self.fingerThreshold = fingerThreshold
        // ~1.5 s time constant: slow enough to ignore beats, fast enough to follow a finger landing.
        dcAlpha = 1 / (1.5 * sampleRate)
        highPass = Biquad.highPass(cutoff: 0.5, sampleRate: sampleRate)
        highPass2 = Biquad.highPass(cutoff: 0.5, sampleRate: sampleRate)
        lowPass = Biquad.lowPass(cutoff: 4, sampleRate: sampleRate)
        settleSamples = Int(saturating: sampleRate * 1.5)
    }

    /// Beats per minute from the mean of the last RR-intervals (up to 8); nil before two beats and
    /// once no beat has been seen for `beatTimeoutSeconds`, so an old rate is never reported.
    public var beatsPerMinute: Double? {
        guard fingerPresent, !recentRR.isEmpty, let since = secondsSinceLastBeat,
              since <= Self.beatTimeoutSeconds else { return nil }
        return 60_000 / (recentRR.reduce(0, +) / Double(recentRR.count))
    }

    /// Signal time since the last accepted beat (or since the finger was placed, before the first
    /// beat); nil without a finger.
    public var secondsSinceLastBeat: Double? {
        guard fingerPresent else { return nil }
        let now = Double(sampleIndex) / sampleRate
        return max(0, now - (lastBeatTime ?? presentSince))
    }

    public var recentRRMilliseconds: [Double] { recentRR }

    private mutating func restart() {
        restartFilters()
        peakEstimate = 0
        lastPeakValue = nil
        lastPeakTime = nil
        lastBeatTime = nil
        recentRR.removeAll()
        consecutiveRejections = 0
        gapSinceLastBeat = false
    }

    /// Accounts for samples the sensor dropped (FIFO overflow): the clock moves on by `count`
    /// samples, and the interval from the last beat to the next one, which spans the gap, is dropped
    /// rather than reported short (18 lost samples at 100 Hz would turn 833 ms into 653 ms).
    /// A peak still waiting for confirmation is confirmed now, since what followed it is lost. The
    /// filters start again: fed across the jump they would ring and misplace the next peaks.
    @discardableResult
    public mutating func skipLostSamples(_ count: Int) -> Beat? {
        guard count > 0 else { return nil }
        var beat: Beat?
        if fingerPresent, let candidate = pending {
            beat = accept(candidate)
        }
        restartFilters()
        // OVF_COUNTER saturates at 31; the bound only keeps the index arithmetic safe.
        sampleIndex += Int64(min(count, 1 << 20))
        gapSinceLastBeat = true
        return beat
    }

    /// Filter state and peak search start over; the learned rhythm and the last beat are kept.
    private mutating func restartFilters() {
        highPass.reset()
        highPass2.reset()
        lowPass.reset()
        trough = .infinity
        pending = nil
        troughSinceCandidate = .infinity
        history = (0, 0, 0)
        settleSamples = Int(saturating: sampleRate * 1.5)
    }

    /// Feeds one raw sample (counts); returns a beat once confirmed (about 200 ms after its peak).
    public mutating func process(_ raw: Double) -> Beat? {
        defer { sampleIndex += 1 }
        let level = dc.map { $0 + (raw - $0) * dcAlpha } ?? raw
        dc = level
        let present = level >= fingerThreshold
        if present != fingerPresent {
            fingerPresent = present
            restart()
            if present {
                dc = raw
                presentSince = Double(sampleIndex) / sampleRate
            }
        }
        guard present else { return nil }
        let ac = raw - (dc ?? raw)
        let filtered = -lowPass.process(highPass2.process(highPass.process(ac)))
        history = (history.1, history.2, filtered)
        if settleSamples > 0 {
            settleSamples -= 1
            // Seed the amplitude estimate from the settled part of the start-up window.
            if settleSamples < Int(saturating: sampleRate * 0.75) {
                trough = min(trough, filtered)
                peakEstimate = max(peakEstimate, filtered)
            }
            return nil
        }
        let now = Double(sampleIndex) / sampleRate
        // Let the threshold sag while no beat comes, so a weaker pulse is found again.
        let sinceBeat = lastPeakTime.map { now - $0 } ?? 0
        let decay = sinceBeat > 1.5 ? 0.5 : 1.0
        let threshold = 0.55 * peakEstimate * decay
        let (a, b, c) = history
        trough = min(trough, c)
        troughSinceCandidate = min(troughSinceCandidate, c)
        let height = b - trough
        // A candidate is held for `confirmWindow`: a higher local maximum inside it (noise splits a
        // broad peak into several) replaces it, so the beat is timed at the true top.
        if let candidate = pending, now - candidate.time > Self.confirmWindow {
            pending = nil
            if let beat = accept(candidate) { return beat }
        }
        // Both the level above the (filtered, zero-mean) baseline and the rise from the last trough
        // must be large: the first rejects the dicrotic wave, the second residual wander.
        guard b > a, b >= c, b > threshold, height > threshold else { return nil }
        let denominator = a - 2 * b + c
        let offset = denominator != 0 ? 0.5 * (a - c) / denominator : 0
        let peakTime = (Double(sampleIndex - 1) + offset) / sampleRate
        // The rhythm-based refractory period keeps dicrotic and diastolic waves out; a peak as high
        // as the last beat, at least 40 % of the usual interval after it, is only held to the
        // physiological minimum, so a rhythm locked at half the rate (every other beat missed in
        // noise) sees the missed beats again and re-learns.
        let sinceLast = lastPeakTime.map { peakTime - $0 } ?? .infinity
        let asHigh = sinceLast >= 0.4 * medianRR / 1000 && lastPeakValue.map { b >= Self.tallPeakFraction * $0 } ?? false
        let refractory = asHigh ? Self.minimumRRMilliseconds / 1000
                                : max(Self.minimumRRMilliseconds / 1000, 0.6 * medianRR / 1000)
        if let last = lastPeakTime, peakTime - last < refractory {
            return nil
        }
        // Soon after a beat, only a peak about as high is another beat: the diastolic (reflected)
        // wave that follows systole is clearly lower, but in real recordings (HeartPy's data.csv)
        // high enough to pass the threshold, which locked the rhythm at a multiple of the rate.
        if let last = lastPeakTime, let lastPeakValue, peakTime - last < Self.echoWindow,
           b < Self.echoLevelFraction * lastPeakValue {
            return nil
        }
        if let candidate = pending, candidate.value >= b { return nil }
        pending = (peakTime, b)
        troughSinceCandidate = c
        return nil
    }

    /// Long enough for the next systole to replace a late diastolic wave taken just before it.
    private static let confirmWindow = 0.2
    /// Within this time after a beat a candidate needs `echoLevelFraction` of the beat's level.
    static let echoWindow = 0.5
    static let echoLevelFraction = 0.6
    /// A candidate this high relative to the last beat skips the rhythm-based refractory period.
    static let tallPeakFraction = 0.8

    private mutating func accept(_ candidate: (time: Double, value: Double)) -> Beat? {
        let peakTime = candidate.time
        let b = candidate.value
        // The start-up seed comes from a window the filters were still settling in: the first beat
        // replaces a lower seed, so a diastolic wave does not pass a threshold set too low.
        peakEstimate = lastPeakValue == nil ? max(peakEstimate, b) : peakEstimate * 0.8 + b * 0.2
        lastPeakValue = b
        // The next rise counts from the valley after this peak (the newest sample may already be on
        // the next beat's upstroke).
        trough = troughSinceCandidate
        lastPeakTime = peakTime
        var rr: Double? = nil
        if gapSinceLastBeat {
            // The interval spans lost samples: its length is not known, so it is neither used nor
            // counted as a rejection.
            gapSinceLastBeat = false
        } else if let previous = lastBeatTime, peakTime - previous > Self.beatTimeoutSeconds {
            // After a gap the old rhythm says nothing about the new one: start again.
            recentRR.removeAll()
            consecutiveRejections = 0
        } else if let previous = lastBeatTime {
            let interval = (peakTime - previous) * 1000
            if interval >= Self.minimumRRMilliseconds, interval <= Self.maximumRRMilliseconds,
               recentRR.count < 3 || abs(interval - medianRR) <= 0.35 * medianRR {
                rr = interval
                consecutiveRejections = 0
                recentRR.append(interval)
                if recentRR.count > 8 { recentRR.removeFirst() }
            } else {
                // Rejected (missed or extra beat). If the rhythm really changed, re-learn it.
                consecutiveRejections += 1
                if consecutiveRejections >= 3 {
                    recentRR.removeAll()
                    consecutiveRejections = 0
                }
            }
        }
        lastBeatTime = peakTime
        return Beat(time: peakTime, rrMilliseconds: rr)
    }

    private var medianRR: Double {
        guard !recentRR.isEmpty else { return 0 }
        let sorted = recentRR.sorted()
        return sorted[sorted.count / 2]
    }
}
