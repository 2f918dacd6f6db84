import Synchronization

/// Heart rate from a MAX3010x: drains the FIFO and runs the beat detector on the IR channel
/// (red in heart-rate mode).
public final class PPGHeartRateMonitor: Sendable {
    public let sensor: MAX3010x
    private struct State {
        var detector: BeatDetector
        var pendingRR: [Double] = []
        var lostSamples = 0
    }
    private let state: Mutex<State>

    public init(sensor: MAX3010x, fingerThreshold: Double = 30_000) {
        self.sensor = sensor
        state = Mutex(State(detector: BeatDetector(sampleRate: Double(sensor.configuration.sampleRate),
                                                   fingerThreshold: fingerThreshold)))
    }

    /// Reads the FIFO once and feeds every sample to the detector; returns the new beats.
    @discardableResult
    public func poll() throws(SensorError) -> [BeatDetector.Beat] {
        let fifo = try sensor.readFIFO()
        return state.withLock { state in
            state.lostSamples += fifo.lostSamples
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
    /// Throws `.noSignal` without a finger, so no stale rate is reported.
    public func reading() throws(SensorError) -> HeartRateReading {
        try state.withLock { state throws(SensorError) -> HeartRateReading in
            guard state.detector.fingerPresent else {
                state.pendingRR.removeAll()
                throw .noSignal(sensor: sensor.variant.rawValue, reason: "no finger on the sensor (IR level below threshold)")
            }
            defer { state.pendingRR.removeAll() }
            return HeartRateReading(beatsPerMinute: state.detector.beatsPerMinute,
                                    rrIntervalsMilliseconds: state.pendingRR, contact: .detected)
        }
    }
}
