import Synchronization

/// A heart-rate receiver module that pulses a GPIO once per beat (e.g. a 5 kHz chest-strap receiver).
/// Edge timestamps come from the kernel, so RR-intervals are as exact as the receiver's output.
public final class GPIOPulseReceiver: Sendable {
    public let line: any GPIOLine
    public let clock: any SensorClock
    public let edge: GPIOEdgeSelection
    public let bias: GPIOBias
    /// No pulse for this long means no signal (strap off, out of range).
    public let signalTimeoutNanoseconds: UInt64

    static let minimumRRMilliseconds = 60_000.0 / 240
    static let maximumRRMilliseconds = 60_000.0 / 25

    private struct State {
        var monitor: (any GPIOEdgeMonitor)?
        var lastBeat: UInt64?
        var recentRR: [Double] = []
        var pendingRR: [Double] = []
        var lateInARow = 0
        var failure: GPIOError?
    }
    private let state = Mutex(State())

    /// `signalTimeoutSeconds` is clamped to 0.5...3600 s; NaN means the default 3 s.
    public init(line: any GPIOLine, clock: any SensorClock = SystemSensorClock(), edge: GPIOEdgeSelection = .rising,
                bias: GPIOBias = .pullDown, signalTimeoutSeconds: Double = 3) {
        self.line = line
        self.clock = clock
        self.edge = edge
        self.bias = bias
        let seconds = signalTimeoutSeconds.isNaN ? 3 : min(3600, max(0.5, signalTimeoutSeconds))
        self.signalTimeoutNanoseconds = UInt64(saturating: seconds * 1e9)
    }

    public func start() throws(SensorError) {
        let monitor: any GPIOEdgeMonitor
        do {
            monitor = try line.monitorEdges(edge, bias: bias, consumer: "blesensor") { [weak self] event in
                self?.handle(event)
            }
        } catch { throw .gpio(error) }
        state.withLock { $0.monitor = monitor }
    }

    public func stop() {
        let monitor = state.withLock { state -> (any GPIOEdgeMonitor)? in
            defer { state.monitor = nil }
            return state.monitor
        }
        monitor?.stop()
    }

    deinit { stop() }

    private func handle(_ event: GPIOMonitorEvent) {
        switch event {
        case let .failed(error): state.withLock { $0.failure = error }
        case let .edge(edge): record(timestamp: edge.timestampNanoseconds)
        }
    }

    /// One pulse at `timestamp` (monotonic ns). Implausible intervals are rejected: too short is a
    /// glitch or bounce (ignored entirely); too long is a gap (restart the rhythm, no RR). Once the
    /// rhythm is known, an interval is kept only within 0.5...1.5 times the recent median: an early
    /// pulse is an extra trigger (interference) and is ignored; a late one spans a missed pulse, so
    /// the pulse counts as a beat but the interval is not reported.
    func record(timestamp: UInt64) {
        state.withLock { state in
            guard let last = state.lastBeat, timestamp > last else {
                state.lastBeat = timestamp
                return
            }
            let rr = Double(timestamp - last) / 1e6
            if rr < Self.minimumRRMilliseconds { return }
            let median = state.recentRR.count >= 3 ? state.recentRR.sorted()[state.recentRR.count / 2] : nil
            if let median, rr < 0.5 * median { return }
            state.lastBeat = timestamp
            guard rr <= Self.maximumRRMilliseconds else {
                state.recentRR.removeAll()
                state.lateInARow = 0
                return
            }
            if let median, rr > 1.5 * median {
                state.lateInARow += 1
                // Three late in a row is a slower rhythm, not missed pulses: learn it again.
                if state.lateInARow >= 3 {
                    state.recentRR.removeAll()
                    state.lateInARow = 0
                }
                return
            }
            state.lateInARow = 0
            state.recentRR.append(rr)
            if state.recentRR.count > 8 { state.recentRR.removeFirst() }
            state.pendingRR.append(rr)
        }
    }

    /// Current rate and RR-intervals since the previous call; throws when the signal is gone.
    public func reading() throws(SensorError) -> HeartRateReading {
        let now = clock.nowNanoseconds()
        let timeout = signalTimeoutNanoseconds
        return try state.withLock { state throws(SensorError) -> HeartRateReading in
            if let failure = state.failure { throw .gpio(failure) }
            guard let last = state.lastBeat, now >= last, now - last <= timeout else {
                state.pendingRR.removeAll()
                state.recentRR.removeAll()
                throw .noSignal(sensor: "gpio-pulse", cause: .noPulse(seconds: Double(timeout) / 1e9))
            }
            defer { state.pendingRR.removeAll() }
            let bpm = state.recentRR.isEmpty ? nil : 60_000 / (state.recentRR.reduce(0, +) / Double(state.recentRR.count))
            return HeartRateReading(beatsPerMinute: bpm, rrIntervalsMilliseconds: state.pendingRR, contact: .unsupported)
        }
    }
}
