/// Sensirion SHT31 humidity/temperature sensor (0x44 or 0x45).
public final class SHT31: Sendable {
    public enum Command: UInt16, Sendable {
        /// Single shot, high repeatability, no clock stretching: the chip NACKs reads until done.
        case singleShotHigh = 0x2400
        case singleShotMedium = 0x240B
        case singleShotLow = 0x2416
        case readStatus = 0xF32D
        case clearStatus = 0x3041
        case softReset = 0x30A2
        /// The heater warms the die by a few degrees, so the temperature read while it is on is not
        /// the ambient one: it is for checking the humidity sensor (condensation, plausibility), not
        /// for normal measurement.
        case heaterOn = 0x306D
        case heaterOff = 0x3066
    }

    /// Repeatability of a single-shot measurement (datasheet table 9, no clock stretching): higher
    /// repeatability is less noisy and takes longer (table 4, maximum durations).
    public enum Repeatability: String, Sendable, CaseIterable {
        case high, medium, low

        public var command: Command {
            switch self {
            case .high: .singleShotHigh
            case .medium: .singleShotMedium
            case .low: .singleShotLow
            }
        }

        public var maxMeasurementMilliseconds: Double {
            switch self {
            case .high: 15
            case .medium: 6
            case .low: 4
            }
        }
    }

    public struct Status: Sendable, Equatable {
        public var raw: UInt16
        public var alertPending: Bool { raw & 0x8000 != 0 }
        public var heaterOn: Bool { raw & 0x2000 != 0 }
        public var humidityAlert: Bool { raw & 0x0800 != 0 }
        public var temperatureAlert: Bool { raw & 0x0400 != 0 }
        /// Set after power-up, reset or brown-out until cleared.
        public var resetDetected: Bool { raw & 0x0010 != 0 }
        public var lastCommandFailed: Bool { raw & 0x0002 != 0 }
        public var writeChecksumFailed: Bool { raw & 0x0001 != 0 }
    }

    public let bus: any I2CBus
    public let address: UInt8
    public let clock: any SensorClock
    public let repeatability: Repeatability

    /// The 7-bit address the chip answers on when its address pins are left at their default.
    public static let defaultAddress: UInt8 = 0x44

    public init(bus: any I2CBus, address: UInt8 = defaultAddress, clock: any SensorClock = SystemSensorClock(),
                repeatability: Repeatability = .high) {
        self.bus = bus
        self.address = address
        self.clock = clock
        self.repeatability = repeatability
    }

    /// Switches the heater on or off; it stays so until changed or the chip is reset (status bit 13).
    public func setHeater(_ on: Bool) throws(SensorError) {
        try send(on ? .heaterOn : .heaterOff)
    }

    public func send(_ command: Command) throws(SensorError) {
        do {
            try bus.write(address: address, bytes: [UInt8(command.rawValue >> 8), UInt8(truncatingIfNeeded: command.rawValue)])
        } catch { throw .bus(error) }
    }

    public func readStatus() throws(SensorError) -> Status {
        try send(.readStatus)
        let bytes: [UInt8]
        do { bytes = try bus.read(address: address, count: 3) } catch { throw .bus(error) }
        return Status(raw: try SensirionWords.decode(bytes, words: 1, sensor: "SHT31")[0])
    }

    public func read() throws(SensorError) -> TemperatureHumidityReading {
        try send(repeatability.command)
        clock.sleep(milliseconds: repeatability.maxMeasurementMilliseconds)
        let bytes: [UInt8]
        do { bytes = try bus.read(address: address, count: 6) } catch { throw .bus(error) }
        let words = try SensirionWords.decode(bytes, words: 2, sensor: "SHT31")
        return TemperatureHumidityReading(celsius: Self.celsius(words[0]), relativeHumidity: Self.humidity(words[1]))
    }

    public static func celsius(_ raw: UInt16) -> Double { -45 + 175 * Double(raw) / 65535 }
    public static func humidity(_ raw: UInt16) -> Double { 100 * Double(raw) / 65535 }
}
