import Synchronization

/// TMP102 model: pointer/word registers, R1/R0 read-only ones, 12/13-bit formats, and a 35 ms
/// conversion after a configuration change before the temperature register uses the new format.
public final class SimulatedTMP102: SimulatedI2CDevice {
    private struct State {
        var file = WordRegisterFile(registers: [0x00: 0, 0x01: TMP102.defaultConfiguration, 0x02: 0x4B00, 0x03: 0x5000],
                                    writable: [0x01, 0x02, 0x03])
        var celsius: Double
        var formatChangedAt: UInt64 = 0
        var extendedFormatShown = false
        /// The temperature register reads 0x0000 until the first conversion after power-up.
        var firstConversionAt: UInt64
        /// A register word to report instead of converting `celsius` (datasheet table values).
        var rawTemperature: UInt16?
    }
    private let state: Mutex<State>
    private let clock: any SensorClock

    public init(celsius: Double = 25, clock: any SensorClock) {
        // Datasheet 6.5: conversion time 26 ms typical.
        state = Mutex(State(celsius: celsius, firstConversionAt: clock.nowNanoseconds().saturatingAdd(Self.typicalConversionNanoseconds)))
        self.clock = clock
    }

    static let typicalConversionNanoseconds: UInt64 = 26_000_000

    /// Fault injection: the chip powers up again now (its temperature register reads 0x0000 for 26 ms).
    public func powerCycle() {
        let now = clock.nowNanoseconds()
        state.withLock { $0.firstConversionAt = now.saturatingAdd(Self.typicalConversionNanoseconds) }
    }

    public func setTemperature(_ celsius: Double) { state.withLock { $0.celsius = celsius; $0.rawTemperature = nil } }

    /// The temperature register holds `word` (MSB first) after each conversion.
    public func setRawTemperature(_ word: UInt16) { state.withLock { $0.rawTemperature = word } }

    public var configuration: UInt16 { state.withLock { $0.file.registers[0x01] ?? 0 } }

    /// Fault injection: sets or clears SD as if another program (or a brown-out glitch) had.
    public func setShutdown(_ on: Bool) {
        state.withLock { state in
            let configuration = state.file.registers[0x01] ?? 0
            state.file.registers[0x01] = on ? configuration | TMP102.shutdownBit : configuration & ~TMP102.shutdownBit
        }
    }

    public func receive(_ bytes: [UInt8]) throws(SimulatedI2CNack) {
        let now = clock.nowNanoseconds()
        try state.withLock { state throws(SimulatedI2CNack) in
            if try state.file.receive(bytes) == 0x01 {
                // R1/R0 are read-only ones; the OS bit reads back as 0 in continuous mode.
                state.file.registers[0x01] = ((state.file.registers[0x01] ?? 0) | TMP102.resolutionBits) & 0x7FF0
                state.formatChangedAt = now
            }
        }
    }

    public func transmit(count: Int) throws(SimulatedI2CNack) -> [UInt8] {
        let now = clock.nowNanoseconds()
        return state.withLock { state in
            let configuration = state.file.registers[0x01] ?? 0
            // Shut down: no conversions, the register keeps the last result (what the driver must not report).
            if configuration & TMP102.shutdownBit != 0 { return state.file.transmit(count: count) }
            let extended = configuration & TMP102.extendedModeBit != 0
            if now - state.formatChangedAt >= UInt64(TMP102.maxConversionMilliseconds * 1e6) {
                state.extendedFormatShown = extended
            }
            state.file.registers[0x00] = now < state.firstConversionAt
                ? 0x0000 : state.rawTemperature ?? TMP102.raw(celsius: state.celsius, extendedMode: state.extendedFormatShown)
            return state.file.transmit(count: count)
        }
    }

    public func stop() { state.withLock { $0.file.stop() } }
}
