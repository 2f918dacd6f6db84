/// Maxim MAX30205 human body temperature sensor, ±0.1 °C from 37 to 39 °C (0x48...0x4F and the
/// other addresses of datasheet Table 1, set by A0...A2).
///
/// The chip has no ID register, so a different chip at its address cannot be told apart for sure:
/// the driver only refuses what no MAX30205 sends (a floating bus reading all ones, a temperature
/// outside its −40...+125 °C operating range) and says so in the error.
public final class MAX30205: Sendable {
    public enum Register: UInt8 {
        case temperature = 0x00
        case configuration = 0x01
        case hysteresis = 0x02
        case overTemperature = 0x03
    }

    /// Datasheet Table 2 (Configuration register), an 8-bit register.
    static let shutdownBit: UInt8 = 0x01
    static let extendedFormatBit: UInt8 = 0x20
    static let oneShotBit: UInt8 = 0x80
    /// Datasheet electrical characteristics: conversion time 50 ms maximum.
    static let maxConversionMilliseconds = 50.0
    /// Datasheet "Temperature Register": 16-bit two's complement, 0.00390625 °C per LSB.
    static let celsiusPerCount = 0.00390625
    /// Datasheet "Data Format": the extended format adds 64 °C so the range reaches +150 °C.
    static let extendedOffset = 64.0
    static let plausibleCelsius = -40.0...125.0
    /// Datasheet "Register Functionality": T_HYST powers on as 0x4B00 (75 °C). Power-on settings
    /// match the default continuous / normal format and the power-on temperature 0x0000 reads as a
    /// plausible 0.00 °C, so a brown-out would go unnoticed: configure moves T_HYST to 74.5 °C and
    /// every read checks it is still there. (Only the OS pin's hysteresis changes, by 0.5 °C.)
    static let powerOnHysteresis: UInt16 = 0x4B00
    static let configuredHysteresis: UInt16 = 0x4A80

    /// DATA FORMAT bit: normal (two's complement) or extended (+64 °C).
    public enum DataFormat: String, Sendable, Equatable, CaseIterable {
        case normal, extended
    }

    public struct Settings: Sendable, Equatable {
        public var mode: ConversionMode
        public var dataFormat: DataFormat

        public init(mode: ConversionMode = .continuous, dataFormat: DataFormat = .normal) {
            self.mode = mode
            self.dataFormat = dataFormat
        }

        /// SHUTDOWN and DATA FORMAT as the driver keeps them; one-shot conversions start from shutdown.
        var register: UInt8 {
            (mode == .oneShot ? MAX30205.shutdownBit : 0) | (dataFormat == .extended ? MAX30205.extendedFormatBit : 0)
        }
    }

    public let bus: any I2CBus
    public let address: UInt8
    public let clock: any SensorClock
    public let settings: Settings

    /// The 7-bit address with A0, A1 and A2 to GND (0x90 in the datasheet's 8-bit notation).
    public static let defaultAddress: UInt8 = 0x48

    public init(bus: any I2CBus, address: UInt8 = defaultAddress, settings: Settings = Settings(),
                clock: any SensorClock = SystemSensorClock()) {
        self.bus = bus
        self.address = address
        self.settings = settings
        self.clock = clock
    }

    /// Writes SHUTDOWN and DATA FORMAT when they differ (keeping the alarm bits). In continuous mode
    /// it then waits one conversion, so the first read is neither the power-on 0x0000 nor in the old format.
    public func configure() throws(SensorError) {
        let current = try readConfiguration()
        let fields = Self.shutdownBit | Self.extendedFormatBit
        if current & fields != settings.register {
            do {
                try bus.writeByteData(address: address, command: Register.configuration.rawValue,
                                      value: (current & ~fields & ~Self.oneShotBit) | settings.register)
            } catch { throw .bus(error) }
        }
        do {
            try bus.writeBigEndianWord(address: address, command: Register.hysteresis.rawValue, value: Self.configuredHysteresis)
        } catch { throw .bus(error) }
        if settings.mode == .continuous { clock.sleep(milliseconds: Self.maxConversionMilliseconds) }
    }

    func readConfiguration() throws(SensorError) -> UInt8 {
        do { return try bus.readByteData(address: address, command: Register.configuration.rawValue) } catch { throw .bus(error) }
    }

    public func read() throws(SensorError) -> TemperatureReading {
        let configuration = try readConfiguration()
        let fields = Self.shutdownBit | Self.extendedFormatBit
        // ONE-SHOT reads back 0 when idle, so an all-ones configuration is a bus nobody drives.
        if configuration == 0xFF, try readRaw() == 0xFFFF {
            throw .invalidData(sensor: "MAX30205", reason: "every register reads all ones: no chip drives the bus (check SDA pull-up and power)")
        }
        if settings.mode == .continuous, configuration & Self.shutdownBit != 0 { throw .shutDown(sensor: "MAX30205", bit: "SHUTDOWN") }
        // Power-on is continuous, normal format: a chip that lost its settings is set up again. The
        // hysteresis marker tells a brown-out apart when the settings are the power-on ones.
        guard configuration & fields == settings.register else { throw .deviceReset(sensor: "MAX30205") }
        let hysteresis: UInt16
        do { hysteresis = try bus.readBigEndianWord(address: address, command: Register.hysteresis.rawValue) } catch { throw .bus(error) }
        guard hysteresis == Self.configuredHysteresis else { throw .deviceReset(sensor: "MAX30205") }
        if settings.mode == .oneShot {
            do {
                try bus.writeByteData(address: address, command: Register.configuration.rawValue, value: configuration | Self.oneShotBit)
            } catch { throw .bus(error) }
            clock.sleep(milliseconds: Self.maxConversionMilliseconds)
        }
        let celsius = Self.celsius(raw: try readRaw(), format: settings.dataFormat)
        guard Self.plausibleCelsius.contains(celsius) else {
            throw .invalidData(sensor: "MAX30205", reason: "\(celsius) °C is outside the chip's −40…125 °C range: the MAX30205 has no ID register, "
                               + "so check that the chip at \(address.i2cHex) is a MAX30205 and its data-format setting")
        }
        return TemperatureReading(celsius: celsius)
    }

    private func readRaw() throws(SensorError) -> UInt16 {
        do { return try bus.readBigEndianWord(address: address, command: Register.temperature.rawValue) } catch { throw .bus(error) }
    }

    public static func celsius(raw: UInt16, format: DataFormat) -> Double {
        Double(Int16(bitPattern: raw)) * celsiusPerCount + (format == .extended ? extendedOffset : 0)
    }

    /// Register word for a temperature (used by the simulated chip); out-of-range values clamp.
    public static func raw(celsius: Double, format: DataFormat) -> UInt16 {
        let counts = ((celsius - (format == .extended ? extendedOffset : 0)) / celsiusPerCount).rounded()
        return UInt16(bitPattern: Int16(saturating: counts))
    }
}
