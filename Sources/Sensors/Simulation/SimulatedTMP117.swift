import Synchronization

/// TMP117 model: pointer/word registers, device ID 0x0117, the −256 °C reset value until the first
/// conversion, conversion times from the AVG bits, continuous/shutdown/one-shot MOD, Data_Ready
/// cleared by reading the configuration, soft reset, and an EEPROM-busy fault.
public final class SimulatedTMP117: SimulatedI2CDevice {
    private struct State {
        var file: WordRegisterFile
        var celsius: Double
        var conversionStartedAt: UInt64
        var oneShotPending = false
        var completedConversions = 0
        var reportedConversions = 0
        var eepromBusy = false
        /// A register word from a datasheet table, used instead of `celsius` when set.
        var rawTemperature: UInt16?
    }
    private let state: Mutex<State>
    private let clock: any SensorClock

    /// `deviceID` lets tests model another chip answering at the address.
    public init(celsius: Double = 25, deviceID: UInt16 = TMP117.deviceID, clock: any SensorClock) {
        self.clock = clock
        let file = WordRegisterFile(registers: [0x00: TMP117.resetTemperature, 0x01: TMP117.defaultConfiguration,
                                                0x02: 0x6000, 0x03: 0x8000, 0x0F: deviceID],
                                    writable: [0x01, 0x02, 0x03])
        state = Mutex(State(file: file, celsius: celsius, conversionStartedAt: clock.nowNanoseconds()))
    }

    public func setTemperature(_ celsius: Double) { state.withLock { $0.celsius = celsius; $0.rawTemperature = nil } }

    /// The temperature register word each conversion produces, as a datasheet table lists it.
    public func setRawTemperature(_ word: UInt16) { state.withLock { $0.rawTemperature = word } }

    public var configuration: UInt16 { state.withLock { $0.file.registers[0x01] ?? 0 } }

    /// Fault injection: the EEPROM_Busy flag stays set (a chip stuck loading its EEPROM).
    public func setEEPROMBusy(_ on: Bool) { state.withLock { $0.eepromBusy = on } }

    /// Fault injection: a brown-out puts the chip back to its power-on state.
    public func powerCycle() {
        let now = clock.nowNanoseconds()
        state.withLock { Self.reset(&$0, now: now) }
    }

    private static func reset(_ state: inout State, now: UInt64) {
        state.file.registers[0x00] = TMP117.resetTemperature
        state.file.registers[0x01] = TMP117.defaultConfiguration
        state.conversionStartedAt = now
        state.oneShotPending = false
        state.completedConversions = 0
        state.reportedConversions = 0
    }

    private static func averaging(_ configuration: UInt16) -> TMP117.Averaging {
        TMP117.Averaging.allCases[Int((configuration & TMP117.averagingMask) >> 5)]
    }

    private static func cycle(_ configuration: UInt16) -> TMP117.ConversionCycle {
        TMP117.ConversionCycle.allCases[Int((configuration & TMP117.conversionCycleMask) >> 7)]
    }

    /// Brings the temperature register and Data_Ready up to `now`.
    private static func update(_ state: inout State, now: UInt64) {
        let configuration = state.file.registers[0x01] ?? 0
        let active = UInt64(averaging(configuration).conversionMilliseconds * 1e6)
        let elapsed = now >= state.conversionStartedAt ? now - state.conversionStartedAt : 0
        let mode = configuration & TMP117.modeMask
        if state.oneShotPending {
            guard elapsed >= active else { return }
            state.oneShotPending = false
            state.completedConversions += 1
            // One-shot done: the chip goes back to shutdown (MOD reads 01).
            state.file.registers[0x01] = (configuration & ~TMP117.modeMask) | TMP117.shutdownMode
        } else if mode == 0x0000 || mode == 0x0800 {
            guard elapsed >= active else { return }
            let period = max(active, UInt64(cycle(configuration).milliseconds * 1e6))
            state.completedConversions = Int((elapsed - active) / period) + 1
        } else {
            return
        }
        state.file.registers[0x00] = state.rawTemperature ?? TMP117.raw(celsius: state.celsius)
    }

    public func receive(_ bytes: [UInt8]) throws(SimulatedI2CNack) {
        let now = clock.nowNanoseconds()
        try state.withLock { state throws(SimulatedI2CNack) in
            Self.update(&state, now: now)
            let before = state.file.registers[0x01] ?? 0
            guard try state.file.receive(bytes) == 0x01 else { return }
            let written = state.file.registers[0x01] ?? 0
            if written & TMP117.softResetBit != 0 {
                Self.reset(&state, now: now)
                return
            }
            // The flags are read-only; bit 0 is reserved.
            state.file.registers[0x01] = (before & 0xF000) | (written & 0x0FFC)
            state.conversionStartedAt = now
            state.completedConversions = 0
            state.reportedConversions = 0
            state.oneShotPending = written & TMP117.modeMask == TMP117.oneShotMode
        }
    }

    public func transmit(count: Int) throws(SimulatedI2CNack) -> [UInt8] {
        let now = clock.nowNanoseconds()
        return state.withLock { state in
            Self.update(&state, now: now)
            guard state.file.pointer == 0x01 else { return state.file.transmit(count: count) }
            var configuration = (state.file.registers[0x01] ?? 0) & ~(TMP117.dataReadyBit | TMP117.eepromBusyBit)
            if state.completedConversions > state.reportedConversions { configuration |= TMP117.dataReadyBit }
            if state.eepromBusy { configuration |= TMP117.eepromBusyBit }
            // Reading the configuration clears Data_Ready.
            state.reportedConversions = state.completedConversions
            let stored = state.file.registers[0x01]
            state.file.registers[0x01] = configuration
            let out = state.file.transmit(count: count)
            state.file.registers[0x01] = stored
            return out
        }
    }

    public func stop() { state.withLock { $0.file.stop() } }
}
