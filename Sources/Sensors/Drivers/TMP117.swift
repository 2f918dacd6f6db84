/// Continuous conversions or one conversion per read (the chip sleeps in between): TMP117 MOD and
/// MAX30205 SHUTDOWN/ONE-SHOT. The names are the ones the configuration's `mode` and the CLI's
/// `--mode` take.
public enum ConversionMode: String, Sendable, Equatable, CaseIterable {
    case continuous
    case oneShot = "one-shot"
}

/// TI TMP117 ±0.1 °C digital temperature sensor (0x48...0x4B).
public final class TMP117: Sendable {
    public enum Register: UInt8 {
        case temperature = 0x00
        case configuration = 0x01
        case deviceID = 0x0F
    }

    /// Datasheet 7.6.1.2 (Device ID register): DID[11:0] = 0x117, REV[15:12] is the silicon revision.
    public static let deviceID: UInt16 = 0x0117
    /// Datasheet 7.6.1.1: the temperature register reads −256 °C (0x8000) after reset until the first
    /// conversion completes; it is never a measurement.
    static let resetTemperature: UInt16 = 0x8000
    /// Datasheet 7.6.1.2 configuration bits.
    static let dataReadyBit: UInt16 = 0x2000
    static let eepromBusyBit: UInt16 = 0x1000
    static let modeMask: UInt16 = 0x0C00
    static let shutdownMode: UInt16 = 0x0400
    static let oneShotMode: UInt16 = 0x0C00
    static let conversionCycleMask: UInt16 = 0x0380
    static let averagingMask: UInt16 = 0x0060
    /// Self-clearing: restores the power-on configuration and the reset temperature value.
    static let softResetBit: UInt16 = 0x0002
    /// Power-on value: continuous, 1 s cycle, 8 averages.
    static let defaultConfiguration: UInt16 = 0x0220
    /// Datasheet 7.6.1.2: an EEPROM programming cycle takes 7 ms.
    static let eepromProgrammingMilliseconds = 7.0
    /// The datasheet gives typical conversion times only; a quarter more covers the oscillator's spread.
    static let conversionMargin = 1.25

    /// CONV[2:0]: the minimum time between the starts of two conversions (Table 7-7, first column).
    public enum ConversionCycle: String, Sendable, Equatable, CaseIterable {
        case ms15_5 = "15.5ms", ms125 = "125ms", ms250 = "250ms", ms500 = "500ms"
        case s1 = "1s", s4 = "4s", s8 = "8s", s16 = "16s"

        var code: UInt16 { UInt16(Self.allCases.firstIndex(of: self) ?? 4) }
        var milliseconds: Double { [15.5, 125, 250, 500, 1000, 4000, 8000, 16000][Int(code)] }
    }

    /// AVG[1:0]: conversions averaged per result: 1 (none), 8, 32 or 64.
    public enum Averaging: Int, Sendable, Equatable, CaseIterable {
        case x1 = 1, x8 = 8, x32 = 32, x64 = 64

        var code: UInt16 { UInt16(Self.allCases.firstIndex(of: self) ?? 1) }
        /// Table 7-7: the active conversion time of one averaged result.
        var conversionMilliseconds: Double { [15.5, 125, 500, 1000][Int(code)] }
    }

    public struct Settings: Sendable, Equatable {
        public var mode: ConversionMode
        public var conversionCycle: ConversionCycle
        public var averaging: Averaging

        public init(mode: ConversionMode = .continuous, conversionCycle: ConversionCycle = .s1, averaging: Averaging = .x8) {
            self.mode = mode
            self.conversionCycle = conversionCycle
            self.averaging = averaging
        }

        /// Table 7-7: a cycle shorter than the averaging's conversion time is silently stretched by
        /// the chip, so such a pair is refused instead of reporting a rate it does not run at.
        public var problem: String? {
            guard mode == .continuous, conversionCycle.milliseconds < averaging.conversionMilliseconds else { return nil }
            let shortest = ConversionCycle.allCases.first { $0.milliseconds >= averaging.conversionMilliseconds }?.rawValue ?? "1s"
            return "with averaging \(averaging.rawValue) one conversion takes \(formatMilliseconds(averaging.conversionMilliseconds)), "
                + "longer than conversion-cycle \(conversionCycle.rawValue); use conversion-cycle \(shortest) or longer, or less averaging"
        }

        /// MOD, CONV and AVG as the configuration register holds them (alert bits cleared).
        var register: UInt16 {
            let mode = self.mode == .oneShot ? TMP117.shutdownMode : 0
            return mode | conversionCycle.code << 7 | averaging.code << 5
        }
    }

    public let bus: any I2CBus
    public let address: UInt8
    public let clock: any SensorClock
    public let settings: Settings

    /// The 7-bit address the chip answers on with ADD0 to GND.
    public static let defaultAddress: UInt8 = 0x48

    public init(bus: any I2CBus, address: UInt8 = defaultAddress, settings: Settings = Settings(),
                clock: any SensorClock = SystemSensorClock()) {
        self.bus = bus
        self.address = address
        self.settings = settings
        self.clock = clock
    }

    /// Checks the device ID so a TMP102 or MAX30205 at the same address is not read as a TMP117.
    public func verifyIdentity() throws(SensorError) {
        let id: UInt16
        do { id = try bus.readBigEndianWord(address: address, command: Register.deviceID.rawValue) } catch { throw .bus(error) }
        guard id & 0x0FFF == Self.deviceID else {
            throw .wrongChip(sensor: "TMP117", expected: "device ID 0x117", found: "device ID 0x" + String(id & 0x0FFF, radix: 16))
        }
    }

    /// Checks the ID, writes MOD/CONV/AVG when they differ from the settings, and waits for the first
    /// conversion when the register still holds the reset value.
    public func configure() throws(SensorError) {
        if let problem = settings.problem { throw .unsupportedConfiguration(sensor: "TMP117", reason: problem) }
        try verifyIdentity()
        let current = try readConfiguration()
        let wanted = settings.register
        let fields = Self.modeMask | Self.conversionCycleMask | Self.averagingMask
        // Shutdown and one-shot both read back as MOD=01 between conversions.
        var changed = current & fields != wanted & fields
        if changed {
            do {
                try bus.writeBigEndianWord(address: address, command: Register.configuration.rawValue,
                                           value: (current & ~fields & 0x001C) | wanted)
            } catch { throw .bus(error) }
        } else if settings.mode == .continuous {
            changed = try readRaw() == Self.resetTemperature
        }
        if changed, settings.mode == .continuous {
            clock.sleep(milliseconds: settings.averaging.conversionMilliseconds * Self.conversionMargin)
        }
    }

    /// The configuration word; waits once for an EEPROM load or programming cycle to finish.
    func readConfiguration() throws(SensorError) -> UInt16 {
        var value = try readWord(.configuration)
        if value & Self.eepromBusyBit != 0 {
            clock.sleep(milliseconds: Self.eepromProgrammingMilliseconds)
            value = try readWord(.configuration)
            guard value & Self.eepromBusyBit == 0 else {
                throw .conversionTimeout(sensor: "TMP117 (EEPROM busy)", waitedMilliseconds: Self.eepromProgrammingMilliseconds)
            }
        }
        return value
    }

    public func read() throws(SensorError) -> TemperatureReading {
        let configuration = try readConfiguration()
        let fields = Self.modeMask | Self.conversionCycleMask | Self.averagingMask
        switch settings.mode {
        case .continuous:
            // A chip that reset (brown-out) is back at its defaults; one set to shutdown measures nothing.
            guard configuration & Self.modeMask != Self.shutdownMode else { throw .shutDown(sensor: "TMP117", bit: "MOD=01") }
            guard configuration & fields == settings.register & fields else { throw .deviceReset(sensor: "TMP117") }
        case .oneShot:
            // Between one-shot conversions the chip rests in shutdown (MOD=01) with our CONV/AVG; after a
            // brown-out it converts continuously with its power-on averaging, so the wait below would
            // be wrong and the result not the configured one: have it reconfigured.
            guard configuration & fields == settings.register & fields else { throw .deviceReset(sensor: "TMP117") }
            do {
                try bus.writeBigEndianWord(address: address, command: Register.configuration.rawValue,
                                           value: (configuration & 0x03FC) | Self.oneShotMode)
            } catch { throw .bus(error) }
            let waited = settings.averaging.conversionMilliseconds * Self.conversionMargin
            clock.sleep(milliseconds: waited)
            // Reading the configuration clears Data_Ready, so it is checked on this read only.
            guard try readWord(.configuration) & Self.dataReadyBit != 0 else {
                throw .conversionTimeout(sensor: "TMP117", waitedMilliseconds: waited)
            }
        }
        let raw = try readRaw()
        guard raw != Self.resetTemperature else {
            throw .invalidData(sensor: "TMP117", reason: "the temperature register holds the −256 °C reset value: no conversion has completed since reset")
        }
        return TemperatureReading(celsius: Self.celsius(raw: raw))
    }

    private func readRaw() throws(SensorError) -> UInt16 { try readWord(.temperature) }

    private func readWord(_ register: Register) throws(SensorError) -> UInt16 {
        do { return try bus.readBigEndianWord(address: address, command: register.rawValue) } catch { throw .bus(error) }
    }

    /// Datasheet 7.3.1: 16-bit two's complement, 7.8125 m°C per LSB.
    public static func celsius(raw: UInt16) -> Double {
        Double(Int16(bitPattern: raw)) * 0.0078125
    }

    /// Register word for a temperature (used by the simulated chip); out-of-range values clamp.
    public static func raw(celsius: Double) -> UInt16 {
        UInt16(bitPattern: Int16(saturating: (celsius / 0.0078125).rounded()))
    }
}

/// 15.5 ms, 1 s: how the datasheets write conversion times.
func formatMilliseconds(_ milliseconds: Double) -> String {
    if milliseconds >= 1000, milliseconds.truncatingRemainder(dividingBy: 1000) == 0 { return "\(Int(milliseconds / 1000)) s" }
    if milliseconds == milliseconds.rounded() { return "\(Int(milliseconds)) ms" }
    return "\(milliseconds) ms"
}
