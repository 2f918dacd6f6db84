import Synchronization

/// MAX30101/MAX30102 model: byte registers, part ID 0x15, reset bit, a 32-sample FIFO filled at the
/// configured sample rate from a waveform as simulated time passes, overflow counter with rollover
/// off, PWR_RDY after power-up, and FIFO_DATA popping without address auto-increment.
public final class SimulatedMAX3010x: SimulatedI2CDevice {
    /// Returns (red, IR) counts at a time in seconds since sampling started.
    public typealias Waveform = @Sendable (Double) -> (red: Double, ir: Double)

    private struct State {
        var registers = [UInt8](repeating: 0, count: 256)
        var pointer: UInt8 = 0
        var fifo: [(UInt32, UInt32)] = []
        var samplingSince: UInt64?
        var nextSample = 0
        var ambientLightOverflow = false
    }
    private let state: Mutex<State>
    private let clock: any SensorClock
    private let waveform: Mutex<Waveform>

    public init(clock: any SensorClock, partID: UInt8 = MAX3010x.partID, waveform: @escaping Waveform) {
        self.clock = clock
        self.waveform = Mutex(waveform)
        var initial = State()
        initial.registers[0xFF] = partID
        initial.registers[0xFE] = 0x03
        initial.registers[0x00] = MAX3010x.powerReady
        state = Mutex(initial)
    }

    /// Fault injection: strong ambient light; ALC_OVF (status bit 5) is set with every new sample.
    public func setAmbientLightOverflow(_ on: Bool) { state.withLock { $0.ambientLightOverflow = on } }

    public func setWaveform(_ waveform: @escaping Waveform) { self.waveform.withLock { $0 = waveform } }

    /// Simulates a brown-out: registers return to defaults and PWR_RDY is set.
    public func powerCycle() {
        state.withLock { state in
            let part = state.registers[0xFF]
            state = State()
            state.registers[0xFF] = part
            state.registers[0xFE] = 0x03
            state.registers[0x00] = MAX3010x.powerReady
        }
    }

    private func sampleRate(_ registers: [UInt8]) -> Double {
        Double(MAX3010x.sampleRates[Int((registers[0x0A] >> 2) & 0x07)])
    }

    /// Pushes every sample due by `now` into the FIFO.
    private func advance(_ state: inout State, now: UInt64) {
        guard let since = state.samplingSince else { return }
        let mode = state.registers[0x09] & 0x07
        guard mode == 0x02 || mode == 0x03 || mode == 0x07 else { return }
        let rate = sampleRate(state.registers)
        let due = Int(saturating: Double(now - since) / 1e9 * rate)
        let wave = waveform.withLock { $0 }
        while state.nextSample < due {
            let t = Double(state.nextSample) / rate
            state.nextSample += 1
            if state.ambientLightOverflow { state.registers[0x00] |= MAX3010x.ambientLightOverflow }
            if state.fifo.count >= 32 {
                // Rollover disabled: the new sample is lost and counted.
                state.registers[0x05] = min(0x1F, state.registers[0x05] + 1)
                continue
            }
            let value = wave(t)
            let clamp: (Double) -> UInt32 = { min(262_143, UInt32(saturating: $0.rounded())) }
            state.fifo.append((clamp(value.red), clamp(value.ir)))
            state.registers[0x04] = (state.registers[0x04] + 1) & 0x1F
        }
    }

    public func receive(_ bytes: [UInt8]) throws(SimulatedI2CNack) {
        let now = clock.nowNanoseconds()
        state.withLock { state in
            advance(&state, now: now)
            guard let first = bytes.first else { return }
            state.pointer = first
            for (offset, value) in bytes.dropFirst().enumerated() {
                let register = Int(first) + offset
                guard register < 0xFE else { continue }
                switch register {
                case 0x09:
                    if value & MAX3010x.resetBit != 0 {
                        let part = state.registers[0xFF]
                        state = State()
                        state.registers[0xFF] = part
                        state.registers[0xFE] = 0x03
                        state.pointer = first
                        continue
                    }
                    state.registers[0x09] = value
                    state.samplingSince = now
                    state.nextSample = 0
                case 0x04, 0x05, 0x06:
                    state.registers[register] = value & 0x1F
                    state.fifo.removeAll()
                    state.registers[0x04] = state.registers[0x06]
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
            var pendingBytes: [UInt8] = []
            for _ in 0..<count {
                let register = state.pointer
                switch register {
                case 0x07:
                    if pendingBytes.isEmpty {
                        guard !state.fifo.isEmpty else { out.append(0); continue }
                        let (red, ir) = state.fifo.removeFirst()
                        let hr = state.registers[0x09] & 0x07 == 0x02
                        let words = hr ? [red] : [red, ir]
                        pendingBytes = words.flatMap { [UInt8($0 >> 16), UInt8(truncatingIfNeeded: $0 >> 8), UInt8(truncatingIfNeeded: $0)] }
                        state.registers[0x06] = (state.registers[0x06] + 1) & 0x1F
                        state.registers[0x05] = 0
                    }
                    out.append(pendingBytes.removeFirst())
                case 0x00:
                    // Reading the status register clears it.
                    out.append(state.registers[0x00])
                    state.registers[0x00] = 0
                    state.pointer &+= 1
                default:
                    out.append(state.registers[Int(register)])
                    state.pointer &+= 1
                }
            }
            return out
        }
    }

    public func stop() {}
}
