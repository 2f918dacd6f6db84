import Synchronization

/// Heart rate from a MAX3010x or MAX30100: drains the FIFO and runs the beat detector on the IR
/// channel (red in heart-rate mode). With both LEDs on (SpO2 mode) the red/IR pairs also feed a
/// `SpO2Estimator`, which the detector's beats delimit into cardiac cycles.
public final class PPGHeartRateMonitor: Sendable {
    public let sensor: any PPGFrontEnd
    private struct State {
        var detector: BeatDetector
        var oximeter: SpO2Estimator?
        var pendingRR: [Double] = []
        var lostSamples = 0
        /// The newest poll saw ALC_OVF: the samples carry ambient light, so no rate is reported.
        var ambientLightOverflow = false
        /// Monotonic time of the last poll that returned samples.
        var lastSamplesAt: UInt64?
    }
    /// An empty FIFO for this long means the chip stopped sampling (reset, shutdown, unplugged LEDs).
    public static let sampleTimeoutNanoseconds: UInt64 = 1_000_000_000
    private let state: Mutex<State>

    public init(sensor: any PPGFrontEnd, fingerThreshold: Double = 30_000) {
        self.sensor = sensor
        let rate = Double(sensor.sampleRate)
        let oximeter = sensor.samplesRedAndInfrared
            ? SpO2Estimator(sampleRate: rate, fullScale: sensor.adcFullScale, contactThreshold: fingerThreshold) : nil
        state = Mutex(State(detector: BeatDetector(sampleRate: rate, fingerThreshold: fingerThreshold), oximeter: oximeter))
    }

    /// Reads the FIFO once and feeds every sample to the detector; returns the new beats.
    @discardableResult
    public func poll() throws(SensorError) -> [BeatDetector.Beat] {
        let fifo = try sensor.readFIFO()
        let now = sensor.clock.nowNanoseconds()
        return state.withLock { state in
            state.lostSamples += fifo.lostSamples
            if !fifo.samples.isEmpty { state.lastSamplesAt = now }
            state.ambientLightOverflow = fifo.ambientLightOverflow
            var beats: [BeatDetector.Beat] = []
            func record(_ beat: BeatDetector.Beat?) {
                guard let beat else { return }
                state.oximeter?.beat(at: beat.time)
                beats.append(beat)
                if let rr = beat.rrMilliseconds { state.pendingRR.append(rr) }
            }
            for sample in fifo.samples {
                if let ir = sample.ir { state.oximeter?.process(red: Double(sample.red), ir: Double(ir)) }
                record(state.detector.process(Double(sample.ir ?? sample.red)))
            }
            // Lost samples came after these (rollover is off): a gap before the next read's samples.
            record(state.detector.skipLostSamples(fifo.lostSamples))
            // The gap splits a cycle, so its AC and DC would be wrong: start the cycles afresh.
            if fifo.lostSamples > 0 { state.oximeter?.reset() }
            return beats
        }
    }

    /// SpO2 from the samples so far, or why there is none; nil in heart-rate mode (red LED only).
    public func oxygenSaturation() -> Result<SpO2Estimator.Estimate, SpO2Estimator.Gate>? {
        state.withLock { $0.oximeter?.current }
    }

    /// Samples dropped by the chip because the FIFO was not drained in time.
    public var lostSamples: Int { state.withLock { $0.lostSamples } }

    /// The current heart rate and the RR-intervals since the previous call. Without a finger the
    /// reading says "no contact" (no rate), which Heart Rate reports in its contact bits.
    /// Throws `.noSignal` when the chip has delivered no samples for a second, when ambient light
    /// overflows its cancellation, or when no beat has been seen for `BeatDetector.beatTimeoutSeconds`,
    /// so no stale rate is reported.
    public func reading() throws(SensorError) -> HeartRateReading {
        let now = sensor.clock.nowNanoseconds()
        return try state.withLock { state throws(SensorError) -> HeartRateReading in
            guard let last = state.lastSamplesAt, now >= last, now - last <= Self.sampleTimeoutNanoseconds else {
                state.pendingRR.removeAll()
                throw .noSignal(sensor: sensor.partName, cause: .noSamples(seconds: Double(Self.sampleTimeoutNanoseconds) / 1e9))
            }
            if state.ambientLightOverflow {
                state.pendingRR.removeAll()
                throw .noSignal(sensor: sensor.partName, cause: .ambientLightOverflow)
            }
            guard state.detector.fingerPresent else {
                state.pendingRR.removeAll()
                return HeartRateReading(beatsPerMinute: nil, rrIntervalsMilliseconds: [], contact: .notDetected)
            }
            if let since = state.detector.secondsSinceLastBeat, since > BeatDetector.beatTimeoutSeconds {
                state.pendingRR.removeAll()
                throw .noSignal(sensor: sensor.partName, cause: .noHeartbeat(seconds: BeatDetector.beatTimeoutSeconds))
            }
            defer { state.pendingRR.removeAll() }
            return HeartRateReading(beatsPerMinute: state.detector.beatsPerMinute,
                                    rrIntervalsMilliseconds: state.pendingRR, contact: .detected)
        }
    }
}
