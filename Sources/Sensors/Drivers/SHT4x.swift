/// Sensirion SHT40/41/45 humidity/temperature sensor (0x44).
public final class SHT4x: Sendable {
    public enum Command: UInt8, Sendable {
        case measureHighPrecision = 0xFD
        case measureMediumPrecision = 0xF6
        case measureLowPrecision = 0xE0
        case readSerialNumber = 0x89
        case softReset = 0x94
        // Heater on for a while, then a high-precision measurement just before it switches off
        // (datasheet 4.9): power at 3.3 V, and how long.
        case heat200mW1s = 0x39
        case heat200mW100ms = 0x32
        case heat110mW1s = 0x2F
        case heat110mW100ms = 0x24
        case heat20mW1s = 0x1E
        case heat20mW100ms = 0x15
    }

    /// Repeatability of a measurement (datasheet section 4.5 command table: 0xFD, 0xF6, 0xE0): higher
    /// precision is less noisy and takes longer (table 5, maximum durations 8.3, 4.5 and 1.6 ms).
    public enum Precision: String, Sendable, CaseIterable {
        case high, medium, low

        public var command: Command {
            switch self {
            case .high: .measureHighPrecision
            case .medium: .measureMediumPrecision
            case .low: .measureLowPrecision
            }
        }

        public var maxMeasurementMilliseconds: Double {
            switch self {
            case .high: 8.3
            case .medium: 4.5
            case .low: 1.6
            }
        }
    }

    public let bus: any I2CBus
    public let address: UInt8
    public let clock: any SensorClock
    public let precision: Precision

    /// The 7-bit address the chip answers on when its address pins are left at their default.
    public static let defaultAddress: UInt8 = 0x44

    public init(bus: any I2CBus, address: UInt8 = defaultAddress, clock: any SensorClock = SystemSensorClock(),
                precision: Precision = .high) {
        self.bus = bus
        self.address = address
        self.clock = clock
        self.precision = precision
    }

    public func readSerialNumber() throws(SensorError) -> UInt32 {
        let bytes: [UInt8]
        do {
            try bus.writeByte(address: address, value: Command.readSerialNumber.rawValue)
            clock.sleep(milliseconds: 1)
            bytes = try bus.read(address: address, count: 6)
        } catch { throw .bus(error) }
        let words = try SensirionWords.decode(bytes, words: 2, sensor: "SHT4x")
        return UInt32(words[0]) << 16 | UInt32(words[1])
    }

    public func read() throws(SensorError) -> TemperatureHumidityReading {
        try measure(precision.command, waitMilliseconds: precision.maxMeasurementMilliseconds)
    }

    /// Runs the heater pulse and returns the measurement the chip takes at its end: the hot die's
    /// values, never the ambient ones. Blocks for the pulse (up to 1.1 s).
    public func heat(_ pulse: HeaterPulse) throws(SensorError) -> TemperatureHumidityReading {
        try measure(pulse.command, waitMilliseconds: pulse.duration.maxMilliseconds)
    }

    private func measure(_ command: Command, waitMilliseconds: Double) throws(SensorError) -> TemperatureHumidityReading {
        let bytes: [UInt8]
        do {
            try bus.writeByte(address: address, value: command.rawValue)
            clock.sleep(milliseconds: waitMilliseconds)
            bytes = try bus.read(address: address, count: 6)
        } catch { throw .bus(error) }
        let words = try SensirionWords.decode(bytes, words: 2, sensor: "SHT4x")
        return TemperatureHumidityReading(celsius: Self.celsius(words[0]), relativeHumidity: Self.humidity(words[1]))
    }

    public static func celsius(_ raw: UInt16) -> Double { -45 + 175 * Double(raw) / 65535 }
    /// The formula can leave 0...100 %RH; the datasheet says to crop.
    public static func humidity(_ raw: UInt16) -> Double { min(100, max(0, -6 + 125 * Double(raw) / 65535)) }
}
