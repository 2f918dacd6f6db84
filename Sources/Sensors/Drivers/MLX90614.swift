/// Melexis MLX90614 non-contact infrared thermometer on SMBus (0x5A).
///
/// Every word read ends with an SMBus PEC byte. The driver reads it as one combined I2C transfer
/// (write the command, repeated start, read LSB, MSB and PEC) and checks the PEC itself rather than
/// asking i2c-dev for SMBus-with-PEC (I2C_PEC): the transfer is the same on every adapter that does
/// repeated starts, the simulated bus carries it unchanged, and a mismatch becomes a `crcMismatch`
/// naming both values instead of a bare EBADMSG.
public final class MLX90614: Sendable {
    /// Datasheet 8.4.5 (RAM): RAM addresses are read with opcode 000x xxxx.
    public enum RAM: UInt8 {
        case ambient = 0x06
        case object1 = 0x07
    }

    /// Datasheet 8.7.2: 0.02 K per LSB.
    static let kelvinPerCount = 0.02
    /// Datasheet 8.7.2: bit 15 of Tobj flags an error (the value is not a temperature).
    static let errorFlag: UInt16 = 0x8000
    /// Datasheet 8.1: Ta −40...125 °C, To −70...380 °C.
    static let ambientRange = -40.0...125.0
    static let objectRange = -70.0...380.0

    public struct Reading: Sendable, Equatable {
        /// What the sensor looks at (skin, forehead).
        public var objectCelsius: Double
        /// The sensor's own die temperature.
        public var ambientCelsius: Double

        public init(objectCelsius: Double, ambientCelsius: Double) {
            self.objectCelsius = objectCelsius
            self.ambientCelsius = ambientCelsius
        }
    }

    public let bus: any I2CBus
    public let address: UInt8

    /// The 7-bit SMBus address programmed at the factory.
    public static let defaultAddress: UInt8 = 0x5A

    public init(bus: any I2CBus, address: UInt8 = defaultAddress) {
        self.bus = bus
        self.address = address
    }

    public func read() throws(SensorError) -> Reading {
        let ambient = try readWord(.ambient)
        let object = try readWord(.object1)
        guard object & Self.errorFlag == 0, ambient & Self.errorFlag == 0 else {
            throw .invalidData(sensor: "MLX90614", reason: "the chip flags its reading as an error (bit 15 set): check the sensor's field of view and supply")
        }
        let reading = Reading(objectCelsius: Self.celsius(raw: object), ambientCelsius: Self.celsius(raw: ambient))
        guard Self.ambientRange.contains(reading.ambientCelsius), Self.objectRange.contains(reading.objectCelsius) else {
            throw .invalidData(sensor: "MLX90614", reason: "object \(reading.objectCelsius) °C / ambient \(reading.ambientCelsius) °C is outside the chip's range")
        }
        return reading
    }

    /// SMBus Read Word with PEC (datasheet 8.4.3.1): PEC covers address+W, command, address+R, LSB, MSB.
    func readWord(_ register: RAM) throws(SensorError) -> UInt16 {
        let bytes: [UInt8]
        do { bytes = try bus.writeRead(address: address, write: [register.rawValue], readCount: 3) } catch { throw .bus(error) }
        guard bytes.count == 3 else {
            throw .invalidData(sensor: "MLX90614", reason: "expected 3 bytes (LSB, MSB, PEC), got \(bytes.count)")
        }
        let computed = Self.pec(address: address, command: register.rawValue, lsb: bytes[0], msb: bytes[1])
        guard computed == bytes[2] else { throw .crcMismatch(sensor: "MLX90614", expected: computed, received: bytes[2]) }
        return UInt16(bytes[1]) << 8 | UInt16(bytes[0])
    }

    public static func pec(address: UInt8, command: UInt8, lsb: UInt8, msb: UInt8) -> UInt8 {
        CRC8.smbusPEC([address << 1, command, address << 1 | 1, lsb, msb])
    }

    public static func celsius(raw: UInt16) -> Double {
        Double(raw & 0x7FFF) * kelvinPerCount - 273.15
    }

    /// Register word for a temperature (used by the simulated chip); out-of-range values clamp.
    public static func raw(celsius: Double) -> UInt16 {
        min(0x7FFF, UInt16(saturating: ((celsius + 273.15) / kelvinPerCount).rounded()))
    }
}
