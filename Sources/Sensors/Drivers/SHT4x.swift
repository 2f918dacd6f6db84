/// Sensirion SHT40/41/45 humidity/temperature sensor (0x44).
public final class SHT4x: Sendable {
    public enum Command: UInt8, Sendable {
        case measureHighPrecision = 0xFD
        case readSerialNumber = 0x89
        case softReset = 0x94
    }

    /// Datasheet table 5: high repeatability takes at most 8.3 ms.
    static let maxMeasurementMilliseconds = 8.3

    public let bus: any I2CBus
    public let address: UInt8
    public let clock: any SensorClock

    /// The 7-bit address the chip answers on when its address pins are left at their default.
    public static let defaultAddress: UInt8 = 0x44

    public init(bus: any I2CBus, address: UInt8 = defaultAddress, clock: any SensorClock = SystemSensorClock()) {
        self.bus = bus
        self.address = address
        self.clock = clock
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
        let bytes: [UInt8]
        do {
            try bus.writeByte(address: address, value: Command.measureHighPrecision.rawValue)
            clock.sleep(milliseconds: Self.maxMeasurementMilliseconds)
            bytes = try bus.read(address: address, count: 6)
        } catch { throw .bus(error) }
        let words = try SensirionWords.decode(bytes, words: 2, sensor: "SHT4x")
        return TemperatureHumidityReading(celsius: Self.celsius(words[0]), relativeHumidity: Self.humidity(words[1]))
    }

    public static func celsius(_ raw: UInt16) -> Double { -45 + 175 * Double(raw) / 65535 }
    /// The formula can leave 0...100 %RH; the datasheet says to crop.
    public static func humidity(_ raw: UInt16) -> Double { min(100, max(0, -6 + 125 * Double(raw) / 65535)) }
}
