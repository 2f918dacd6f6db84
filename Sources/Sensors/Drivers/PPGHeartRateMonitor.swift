import Synchronization

/// Heart rate from a MAX3010x or MAX30100: drains the FIFO and runs the beat detector on the IR channel
/// (red in heart-rate mode).
public final class PPGHeartRateMonitor: Sendable {
    public let sensor: any PPGFrontEnd
    private struct State {
        var detector: BeatDetector
        var pendingRR: [Double] = []
        var lostSamples = 0
        /// Monotonic time of the last poll that returned samples.
        var lastSamplesAt: UInt64?
    }
    /// An empty FIFO for this long means the chip stopped sampling (reset, shutdown, unplugged LEDs).
    public static let sampleTimeoutNanoseconds: UInt64 = 1_000_000_000
    private let state: Mutex<State>

    public init(sensor: any PPGFrontEnd, fingerThreshold: Double = 30_000) {
        self.sensor = sensor
        state = Mutex(State(detector: BeatDetector(sampleRate: Double(sensor.sampleRate),
                                                   fingerThreshold: fingerThreshold)))
    }

    /// Reads the FIFO once and feeds every sample to the detector; returns the new beats.
    @discardableResult
    public func poll() throws(SensorError) -> [BeatDetector.Beat] {
        let fifo = try sensor.readFIFO()
        let now = sensor.clock.nowNanoseconds()
        return state.withLock { state in
            state.lostSamples += fifo.lostSamples
            if !fifo.samples.isEmpty { state.lastSamplesAt = now }
            var beats: [BeatDetector.Beat] = []
            for sample in fifo.samples {
                if let beat = state.detector.process(Double(sample.ir ?? sample.red)) {
                    beats.append(beat)
                    if let rr = beat.rrMilliseconds { state.pendingRR.append(rr) }
                }
            }
            return beats
        }
    }

    /// Samples dropped by the chip because the FIFO was not drained in time.
    public var lostSamples: Int { state.withLock { $0.lostSamples } }

    /// The current heart rate and the RR-intervals since the previous call.
    /// Throws `.noSignal` without a finger, when the chip has delivered no samples for a second, or
    /// when no beat has been seen for `BeatDetector.beatTimeoutSeconds`, so no stale rate is reported.
    public func reading() throws(SensorError) -> HeartRateReading {
        let now = sensor.clock.nowNanoseconds()
        return try state.withLock { state throws(SensorError) -> HeartRateReading in
            guard let last = state.lastSamplesAt, now >= last, now - last <= Self.sampleTimeoutNanoseconds else {
                state.pendingRR.removeAll()
                throw .noSignal(sensor: sensor.partName,
                                reason: "no samples from the sensor for 1 s: it stopped sampling (reset or shut down?); reconfigure it")
            }
            guard state.detector.fingerPresent else {
                state.pendingRR.removeAll()
                throw .noSignal(sensor: sensor.partName, reason: "no finger on the sensor (IR level below threshold)")
            }
            if let since = state.detector.secondsSinceLastBeat, since > BeatDetector.beatTimeoutSeconds {
                state.pendingRR.removeAll()
                throw .noSignal(sensor: sensor.partName,
                                reason: "no heartbeat found for \(Int(BeatDetector.beatTimeoutSeconds)) s: keep the finger still and press lightly")
            }
            defer { state.pendingRR.removeAll() }
            return HeartRateReading(beatsPerMinute: state.detector.beatsPerMinute,
                                    rrIntervalsMilliseconds: state.pendingRR, contact: .detected)
        }
    }
}
