/// Aosong AHT20 humidity/temperature sensor (0x38).
public final class AHT20: Sendable {
    /// Datasheet 5.4: commands with their parameter bytes.
    static let statusCommand: [UInt8] = [0x71]
    static let initializeCommand: [UInt8] = [0xBE, 0x08, 0x00]
    static let triggerCommand: [UInt8] = [0xAC, 0x33, 0x00]
    /// Status byte: bit 7 busy, bit 3 calibration enabled.
    static let busyBit: UInt8 = 0x80
    static let calibratedBit: UInt8 = 0x08
    /// Datasheet 5.4 step 1 and 3: 10 ms after initialisation, 80 ms for a measurement.
    static let initializeMilliseconds = 10.0
    static let measurementMilliseconds = 80.0
    /// A measurement still busy after 80 ms gets one more wait of this length before it is a timeout.
    static let extraWaitMilliseconds = 20.0

    public let bus: any I2CBus
    public let address: UInt8
    public let clock: any SensorClock

    /// The chip's only address.
    public static let defaultAddress: UInt8 = 0x38

    public init(bus: any I2CBus, address: UInt8 = defaultAddress, clock: any SensorClock = SystemSensorClock()) {
        self.bus = bus
        self.address = address
        self.clock = clock
    }

    func readStatus() throws(SensorError) -> UInt8 {
        let bytes: [UInt8]
        do { bytes = try bus.writeRead(address: address, write: Self.statusCommand, readCount: 1) } catch { throw .bus(error) }
        guard let status = bytes.first else { throw .invalidData(sensor: "AHT20", reason: "empty status read") }
        return status
    }

    /// Datasheet 5.4 step 1: a chip whose calibration bit is clear gets the initialisation command.
    public func ensureCalibrated() throws(SensorError) {
        guard try readStatus() & Self.calibratedBit == 0 else { return }
        do { try bus.write(address: address, bytes: Self.initializeCommand) } catch { throw .bus(error) }
        clock.sleep(milliseconds: Self.initializeMilliseconds)
        guard try readStatus() & Self.calibratedBit != 0 else {
            throw .invalidData(sensor: "AHT20", reason: "the calibration bit stays clear after initialisation (0xBE): power-cycle the sensor")
        }
    }

    public func read() throws(SensorError) -> TemperatureHumidityReading {
        try ensureCalibrated()
        do { try bus.write(address: address, bytes: Self.triggerCommand) } catch { throw .bus(error) }
        clock.sleep(milliseconds: Self.measurementMilliseconds)
        var bytes = try readFrame()
        if bytes[0] & Self.busyBit != 0 {
            clock.sleep(milliseconds: Self.extraWaitMilliseconds)
            bytes = try readFrame()
            guard bytes[0] & Self.busyBit == 0 else {
                throw .conversionTimeout(sensor: "AHT20", waitedMilliseconds: Self.measurementMilliseconds + Self.extraWaitMilliseconds)
            }
        }
        return try Self.decode(bytes)
    }

    /// Status, five data bytes and the CRC.
    private func readFrame() throws(SensorError) -> [UInt8] {
        let bytes: [UInt8]
        do { bytes = try bus.read(address: address, count: 7) } catch { throw .bus(error) }
        guard bytes.count == 7 else { throw .invalidData(sensor: "AHT20", reason: "expected 7 bytes, got \(bytes.count)") }
        return bytes
    }

    /// Datasheet 5.4 step 4 and 6.1/6.2: CRC-8 (0x31, init 0xFF) over the first six bytes; 20-bit
    /// humidity then 20-bit temperature sharing the middle byte.
    public static func decode(_ bytes: [UInt8]) throws(SensorError) -> TemperatureHumidityReading {
        guard bytes.count == 7 else { throw .invalidData(sensor: "AHT20", reason: "expected 7 bytes, got \(bytes.count)") }
        let computed = CRC8.sensirion(bytes.prefix(6))
        guard computed == bytes[6] else { throw .crcMismatch(sensor: "AHT20", expected: computed, received: bytes[6]) }
        let humidity = UInt32(bytes[1]) << 12 | UInt32(bytes[2]) << 4 | UInt32(bytes[3]) >> 4
        let temperature = UInt32(bytes[3] & 0x0F) << 16 | UInt32(bytes[4]) << 8 | UInt32(bytes[5])
        return TemperatureHumidityReading(celsius: Double(temperature) / 1_048_576 * 200 - 50,
                                          relativeHumidity: Double(humidity) / 1_048_576 * 100)
    }
}
