import Synchronization

/// MAX30100 model: byte registers, part ID 0x11, reset bit, a 16-sample FIFO of 16-bit IR/red pairs
/// filled at the configured rate as simulated time passes (only in SpO2 or heart-rate mode), an
/// overflow counter for samples lost to a full FIFO, PWR_RDY after power-up, and FIFO_DATA popping
/// without address auto-increment.
public final class SimulatedMAX30100: SimulatedI2CDevice {
    /// Returns (red, IR) counts (0...65535) at a time in seconds since sampling started.
    public typealias Waveform = @Sendable (Double) -> (red: Double, ir: Double)

    private struct State {
        var registers = [UInt8](repeating: 0, count: 256)
        var pointer: UInt8 = 0
        var fifo: [(red: UInt16, ir: UInt16)] = []
        var samplingSince: UInt64?
        var nextSample = 0
        var pending: [UInt8] = []

        init(partID: UInt8) {
            registers[0xFF] = partID
            registers[0xFE] = 0x03
            registers[0x00] = MAX30100.powerReady
        }
    }
    private let state: Mutex<State>
    private let clock: any SensorClock
    private let waveform: Mutex<Waveform>

    public init(clock: any SensorClock, partID: UInt8 = MAX30100.partID, waveform: @escaping Waveform) {
        self.clock = clock
        self.waveform = Mutex(waveform)
        state = Mutex(State(partID: partID))
    }

    public func setWaveform(_ waveform: @escaping Waveform) { self.waveform.withLock { $0 = waveform } }

    /// Simulates a brown-out: registers return to defaults and PWR_RDY is set.
    public func powerCycle() {
        state.withLock { state in state = State(partID: state.registers[0xFF]) }
    }

    /// Pushes every sample due by `now` into the FIFO.
    private func advance(_ state: inout State, now: UInt64) {
        guard let since = state.samplingSince else { return }
        let mode = state.registers[0x06] & 0x07
        guard mode == 0x02 || mode == 0x03, state.registers[0x06] & 0x80 == 0 else { return }
        let rate = Double(MAX30100.sampleRates[Int((state.registers[0x07] >> 2) & 0x07)])
        let due = Int(saturating: Double(now - since) / 1e9 * rate)
        let wave = waveform.withLock { $0 }
        while state.nextSample < due {
            let t = Double(state.nextSample) / rate
            state.nextSample += 1
            if state.fifo.count >= MAX30100.fifoDepth {
                state.registers[0x03] = min(0x0F, state.registers[0x03] + 1)
                continue
            }
            let value = wave(t)
            let clamp: (Double) -> UInt16 = { UInt16(saturating: $0.rounded()) }
            // Heart-rate mode lights the IR LED only.
            state.fifo.append((red: mode == 0x02 ? 0 : clamp(value.red), ir: clamp(value.ir)))
            state.registers[0x02] = (state.registers[0x02] + 1) & 0x0F
        }
    }

    public func receive(_ bytes: [UInt8]) throws(SimulatedI2CNack) {
        let now = clock.nowNanoseconds()
        state.withLock { state in
            advance(&state, now: now)
            guard let first = bytes.first else { return }
            state.pointer = first
            state.pending = []
            for (offset, value) in bytes.dropFirst().enumerated() {
                let register = Int(first) + offset
                guard register < 0xFE else { continue }
                switch register {
                case 0x06:
                    if value & MAX30100.resetBit != 0 {
                        state = State(partID: state.registers[0xFF])
                        state.registers[0x00] = 0
                        state.pointer = first
                        continue
                    }
                    state.registers[0x06] = value
                    state.samplingSince = now
                    state.nextSample = 0
                case 0x02, 0x03, 0x04:
                    state.registers[register] = value & 0x0F
                    state.fifo.removeAll()
                    state.registers[0x02] = state.registers[0x04]
                default:
                    state.registers[register] = value
                }
            }
        }
    }

    public func transmit(count: Int) throws(SimulatedI2CNack) -> [UInt8] {
        let now = clock.nowNanoseconds()
        return state.withLock { state in
            advance(&state, now: now)
            var out: [UInt8] = []
            for _ in 0..<count {
                switch state.pointer {
                case 0x05:
                    if state.pending.isEmpty {
                        guard !state.fifo.isEmpty else { out.append(0); continue }
                        let sample = state.fifo.removeFirst()
                        state.pending = [UInt8(sample.ir >> 8), UInt8(truncatingIfNeeded: sample.ir),
                                         UInt8(sample.red >> 8), UInt8(truncatingIfNeeded: sample.red)]
                        state.registers[0x04] = (state.registers[0x04] + 1) & 0x0F
                        state.registers[0x03] = 0
                    }
                    out.append(state.pending.removeFirst())
                case 0x00:
                    // Reading the status register clears it.
                    out.append(state.registers[0x00])
                    state.registers[0x00] = 0
                    state.pointer &+= 1
                default:
                    out.append(state.registers[Int(state.pointer)])
                    state.pointer &+= 1
                }
            }
            return out
        }
    }

    public func stop() { state.withLock { $0.pending = [] } }
}
