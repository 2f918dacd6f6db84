import Synchronization

/// MCP9808 model with IDs, the ambient register's alert flag bits and sign handling.
public final class SimulatedMCP9808: SimulatedI2CDevice {
    private struct State {
        var file = WordRegisterFile(registers: [0x01: 0, 0x02: 0, 0x03: 0, 0x04: 0, 0x05: 0,
                                                0x06: MCP9808.manufacturerID, 0x07: 0x0400, 0x08: 0x0300],
                                    writable: [0x01, 0x02, 0x03, 0x04])
        var celsius: Double
        /// The ambient register reads 0x0000 until the first conversion after power-up.
        var firstConversionAt: UInt64 = 0
        /// A register word to report instead of converting `celsius` (datasheet table values).
        var rawTemperature: UInt16?
    }
    private let state: Mutex<State>
    private let clock: (any SensorClock)?

    /// `deviceID` lets tests model a different chip answering at the address. With a `clock` the
    /// chip has just powered up: its first conversion takes 250 ms (datasheet t_CONV at 0.0625 °C).
    public init(celsius: Double = 25, deviceID: UInt16 = 0x0400, clock: (any SensorClock)? = nil) {
        var initial = State(celsius: celsius)
        initial.file.registers[0x07] = deviceID
        if let clock { initial.firstConversionAt = clock.nowNanoseconds().saturatingAdd(250_000_000) }
        state = Mutex(initial)
        self.clock = clock
    }

    public func setTemperature(_ celsius: Double) { state.withLock { $0.celsius = celsius; $0.rawTemperature = nil } }

    /// The ambient register holds `word`, alert flags included, after each conversion.
    public func setRawTemperature(_ word: UInt16) { state.withLock { $0.rawTemperature = word } }

    /// Fault injection: sets or clears CONFIG.SHDN as if another program had.
    public func setShutdown(_ on: Bool) {
        state.withLock { state in
            let configuration = state.file.registers[0x01] ?? 0
            state.file.registers[0x01] = on ? configuration | MCP9808.shutdownBit : configuration & ~MCP9808.shutdownBit
        }
    }

    /// The resolution register (0x08): bits 1-0, 0b11 (0.0625 °C) after power-up.
    public var resolution: UInt8 { state.withLock { UInt8(($0.file.registers[0x08] ?? 0) >> 8) } }

    public func receive(_ bytes: [UInt8]) throws(SimulatedI2CNack) {
        try state.withLock { state throws(SimulatedI2CNack) in
            // The resolution register is one byte wide (kept in the high byte so a one-byte read
            // streams it); bits 7-2 are unimplemented and read as 0.
            if bytes.count == 2, bytes[0] == 0x08 {
                _ = try state.file.receive([0x08])
                state.file.registers[0x08] = UInt16(bytes[1] & 0x03) << 8
                return
            }
            _ = try state.file.receive(bytes)
        }
    }

    public func transmit(count: Int) throws(SimulatedI2CNack) -> [UInt8] {
        let now = clock?.nowNanoseconds() ?? .max
        return state.withLock { state in
            // Shut down: no conversions, the ambient register keeps the last result.
            if (state.file.registers[0x01] ?? 0) & MCP9808.shutdownBit != 0 { return state.file.transmit(count: count) }
            guard now >= state.firstConversionAt else {
                state.file.registers[0x05] = 0x0000
                return state.file.transmit(count: count)
            }
            if let word = state.rawTemperature {
                state.file.registers[0x05] = word
                return state.file.transmit(count: count)
            }
            // Bits below the configured resolution read as 0 (register 5-4 notes): 0.5 °C keeps
            // bits 12-3, 0.25 °C bits 12-2, 0.125 °C bits 12-1.
            let droppedBits = 3 - Int((state.file.registers[0x08] ?? 0) >> 8 & 0x03)
            var raw = MCP9808.raw(celsius: state.celsius) & ~UInt16((1 << droppedBits) - 1)
            // Tcrit/Tupper/Tlower flags sit above the temperature; the default limits are 0 °C.
            if state.celsius > 0 { raw |= 0xC000 }
            state.file.registers[0x05] = raw
            return state.file.transmit(count: count)
        }
    }

    public func stop() { state.withLock { $0.file.stop() } }
}
