import Synchronization

/// MAX17048 model: VCELL, SOC, CRATE from scripted values; VERSION 0x0012.
public final class SimulatedMAX17048: SimulatedI2CDevice {
    private let state: Mutex<WordRegisterFile>

    public init(cellVolts: Double = 3.9, percent: Double = 80, version: UInt16 = 0x0012) {
        state = Mutex(WordRegisterFile(registers: [0x02: 0, 0x04: 0, 0x06: 0, 0x08: version, 0x0A: 0x8030,
                                                   0x0C: 0x971C, 0x16: 0, 0x1A: 0x0100],
                                       writable: [0x06, 0x0A, 0x0C, 0x1A]))
        set(cellVolts: cellVolts, percent: percent, ratePercentPerHour: 0)
    }

    /// STATUS (0x1A); RI (bit 8) is set at power-up.
    public var status: UInt16 { state.withLock { $0.registers[0x1A] ?? 0 } }

    /// Fault injection: a brown-out reset sets RI again.
    public func reset() { state.withLock { $0.registers[0x1A] = ($0.registers[0x1A] ?? 0) | 0x0100 } }

    /// Loads register words as the chip would report them (datasheet examples).
    public func setRaw(vcell: UInt16, soc: UInt16, crate: UInt16 = 0) {
        state.withLock { file in
            file.registers[0x02] = vcell
            file.registers[0x04] = soc
            file.registers[0x16] = crate
        }
    }

    public func set(cellVolts: Double, percent: Double, ratePercentPerHour: Double) {
        state.withLock { file in
            // Saturating: scripted values outside the registers' range (or NaN) must not trap.
            file.registers[0x02] = UInt16(saturating: (cellVolts / 78.125e-6).rounded())
            file.registers[0x04] = UInt16(saturating: (percent * 256).rounded())
            file.registers[0x16] = UInt16(bitPattern: Int16(saturating: (ratePercentPerHour / 0.208).rounded()))
        }
    }

    public func receive(_ bytes: [UInt8]) throws(SimulatedI2CNack) {
        try state.withLock { file throws(SimulatedI2CNack) in _ = try file.receive(bytes) }
    }

    public func transmit(count: Int) throws(SimulatedI2CNack) -> [UInt8] {
        state.withLock { $0.transmit(count: count) }
    }

    public func stop() { state.withLock { $0.stop() } }
}
