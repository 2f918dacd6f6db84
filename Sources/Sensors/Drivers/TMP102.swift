/// TI TMP102 digital temperature sensor (addresses 0x48...0x4B).
public final class TMP102: Sendable {
    public enum Register: UInt8 {
        case temperature = 0x00
        case configuration = 0x01
        case lowLimit = 0x02
        case highLimit = 0x03
    }

    /// Config word bits (MSB-first word): byte 1 = OS R1 R0 F1 F0 POL TM SD, byte 2 = CR1 CR0 AL EM 0 0 0 0.
    static let resolutionBits: UInt16 = 0x6000
    static let conversionRateBits: UInt16 = 0x00C0
    static let extendedModeBit: UInt16 = 0x0010
    /// SD: shutdown mode; conversions stop and the temperature register keeps its last value.
    static let shutdownBit: UInt16 = 0x0100
    /// Power-on default: 4 Hz conversions, comparator mode, 12-bit.
    static let defaultConfiguration: UInt16 = 0x60A0
    /// Datasheet: conversion time 26 ms typical, 35 ms maximum.
    static let maxConversionMilliseconds = 35.0

    public let bus: any I2CBus
    public let address: UInt8
    public let clock: any SensorClock
    /// When the first conversion after this driver first reached the chip (or reconfigured it) is
    /// done. The register reads 0x0000 (0.00 °C) until then after power-up, and the driver cannot
    /// tell how long the chip has been powered, so its first read waits the 35 ms once.
    private let firstConversion = FirstConversionWait(milliseconds: maxConversionMilliseconds)

    /// The 7-bit address the chip answers on when its address pins are left at their default.
    public static let defaultAddress: UInt8 = 0x48

    public init(bus: any I2CBus, address: UInt8 = defaultAddress, clock: any SensorClock = SystemSensorClock()) {
        self.bus = bus
        self.address = address
        self.clock = clock
    }

    /// How often the chip converts in continuous mode (datasheet table "Conversion Rate Settings",
    /// CR1/CR0); each conversion still takes 26 ms, the rest of the period it idles at lower current.
    public enum ConversionRate: UInt16, Sendable, CaseIterable {
        case hz0_25 = 0b00, hz1 = 0b01, hz4 = 0b10, hz8 = 0b11

        /// The name used in configuration files and on the command line: 0.25, 1, 4, 8 (Hz).
        public var name: String {
            switch self {
            case .hz0_25: "0.25"
            case .hz1: "1"
            case .hz4: "4"
            case .hz8: "8"
            }
        }

        public init?(name: String) {
            guard let match = Self.allCases.first(where: { $0.name == name }) else { return nil }
            self = match
        }
    }

    /// Selects 12-bit (-55...128 °C) or 13-bit extended mode (up to 150 °C) and, when given, the
    /// conversion rate. A format change waits for a conversion in the new format, because the
    /// register keeps the old format until then; a rate change needs no wait.
    public func configure(extendedMode: Bool, conversionRate: ConversionRate? = nil) throws(SensorError) {
        let current = try readConfiguration()
        var value = (current & ~Self.extendedModeBit)
        if extendedMode { value |= Self.extendedModeBit }
        if let conversionRate { value = (value & ~Self.conversionRateBits) | conversionRate.rawValue << 6 }
        guard value != current else { return }
        do {
            try bus.writeBigEndianWord(address: address, command: Register.configuration.rawValue, value: value)
        } catch { throw .bus(error) }
        guard (value ^ current) & Self.extendedModeBit != 0 else { return }
        clock.sleep(milliseconds: Self.maxConversionMilliseconds)
        let now = clock.nowNanoseconds()
        firstConversion.completed(at: now)
    }

    /// Reads the configuration; R1/R0 are read-only ones on a TMP102, which tells it from other chips at 0x48.
    public func readConfiguration() throws(SensorError) -> UInt16 {
        let value: UInt16
        do {
            value = try bus.readBigEndianWord(address: address, command: Register.configuration.rawValue)
        } catch { throw .bus(error) }
        guard value & Self.resolutionBits == Self.resolutionBits else {
            throw .wrongChip(sensor: "TMP102", expected: "configuration with R1/R0 = 11",
                             found: "configuration 0x" + String(value, radix: 16))
        }
        return value
    }

    public func read() throws(SensorError) -> TemperatureReading {
        let configuration = try readConfiguration()
        guard configuration & Self.shutdownBit == 0 else { throw .shutDown(sensor: "TMP102", bit: "SD") }
        firstConversion.wait(on: clock)
        let raw: UInt16
        do {
            raw = try bus.readBigEndianWord(address: address, command: Register.temperature.rawValue)
        } catch { throw .bus(error) }
        return TemperatureReading(celsius: Self.celsius(raw: raw))
    }

    /// Bit 0 of the second byte flags the 13-bit format; otherwise the value is 12-bit left-justified.
    public static func celsius(raw: UInt16) -> Double {
        let signed = Int16(bitPattern: raw)
        let counts = raw & 0x0001 != 0 ? Int(signed >> 3) : Int(signed >> 4)
        return Double(counts) * 0.0625
    }

    /// Register word for a temperature, the inverse of `celsius(raw:)` (used by the simulated chip).
    /// Out-of-range temperatures clamp to the format's limits; NaN encodes 0 °C.
    public static func raw(celsius: Double, extendedMode: Bool) -> UInt16 {
        let counts = Int(saturating: (celsius / 0.0625).rounded())
        if extendedMode {
            let clamped = Int16(clamping: max(-4096, min(4095, counts)))
            return UInt16(bitPattern: clamped << 3) | 0x0001
        }
        let clamped = Int16(clamping: max(-2048, min(2047, counts)))
        return UInt16(bitPattern: clamped << 4)
    }
}
