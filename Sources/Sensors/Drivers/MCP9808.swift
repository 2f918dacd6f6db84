/// Microchip MCP9808 ±0.25 °C temperature sensor (addresses 0x18...0x1F).
public final class MCP9808: Sendable {
    public enum Register: UInt8 {
        case configuration = 0x01
        case upperLimit = 0x02
        case lowerLimit = 0x03
        case criticalLimit = 0x04
        case ambientTemperature = 0x05
        case manufacturerID = 0x06
        case deviceID = 0x07
        case resolution = 0x08
    }

    public static let manufacturerID: UInt16 = 0x0054
    /// Upper byte of the device ID/revision register.
    public static let deviceID: UInt8 = 0x04

    /// CONFIG bit 8 (SHDN): shutdown mode; the ambient register keeps its last conversion.
    static let shutdownBit: UInt16 = 0x0100

    /// Datasheet table 1-1 / 5.2.4: t_CONV is 250 ms at the power-up resolution (0.0625 °C); until the
    /// first conversion the ambient register reads 0x0000, which would be 0.00 °C. The first read waits
    /// this long whatever resolution is configured: a chip that has just powered up runs its first
    /// conversion at the power-up resolution, and the driver cannot tell when that was.
    static let firstConversionMilliseconds = 250.0

    /// The resolution register (0x08, one byte, bits 1-0; datasheet register 5-9) and its conversion
    /// time t_CONV (table 1-1, typical): a coarser step converts faster and draws less on average.
    public enum Resolution: UInt8, Sendable, CaseIterable {
        case halfDegree = 0b00, quarterDegree = 0b01, eighthDegree = 0b10, sixteenthDegree = 0b11

        /// The name used in configuration files and on the command line: the step in °C.
        public var name: String {
            switch self {
            case .halfDegree: "0.5"
            case .quarterDegree: "0.25"
            case .eighthDegree: "0.125"
            case .sixteenthDegree: "0.0625"
            }
        }

        public var conversionMilliseconds: Double {
            switch self {
            case .halfDegree: 30
            case .quarterDegree: 65
            case .eighthDegree: 130
            case .sixteenthDegree: 250
            }
        }

        public init?(name: String) {
            guard let match = Self.allCases.first(where: { $0.name == name }) else { return nil }
            self = match
        }
    }

    public let bus: any I2CBus
    public let address: UInt8
    public let clock: any SensorClock
    /// When the first conversion after this driver first reached the chip is done: the driver cannot
    /// tell how long the chip has been powered, so its first read waits one conversion time.
    private let firstConversion = FirstConversionWait(milliseconds: firstConversionMilliseconds)

    /// The 7-bit address the chip answers on when its address pins are left at their default.
    public static let defaultAddress: UInt8 = 0x18

    public init(bus: any I2CBus, address: UInt8 = defaultAddress, clock: any SensorClock = SystemSensorClock()) {
        self.bus = bus
        self.address = address
        self.clock = clock
    }

    /// Checks manufacturer (0x0054) and device (0x04xx) IDs so a wrong address is not read as a temperature.
    public func verifyIdentity() throws(SensorError) {
        let manufacturer: UInt16
        let device: UInt16
        do {
            manufacturer = try bus.readBigEndianWord(address: address, command: Register.manufacturerID.rawValue)
            device = try bus.readBigEndianWord(address: address, command: Register.deviceID.rawValue)
        } catch { throw .bus(error) }
        guard manufacturer == Self.manufacturerID, UInt8(device >> 8) == Self.deviceID else {
            throw .wrongChip(sensor: "MCP9808", expected: "manufacturer 0x0054, device 0x04",
                             found: "manufacturer 0x\(String(manufacturer, radix: 16)), device 0x\(String(device >> 8, radix: 16))")
        }
    }

    /// Writes the resolution register after checking the chip's identity, so no other chip's register
    /// 0x08 is written.
    public func configure(resolution: Resolution) throws(SensorError) {
        try verifyIdentity()
        do {
            try bus.writeByteData(address: address, command: Register.resolution.rawValue, value: resolution.rawValue)
        } catch { throw .bus(error) }
    }

    public func read() throws(SensorError) -> TemperatureReading {
        try verifyIdentity()
        let raw: UInt16
        do {
            let configuration = try bus.readBigEndianWord(address: address, command: Register.configuration.rawValue)
            guard configuration & Self.shutdownBit == 0 else { throw SensorError.shutDown(sensor: "MCP9808", bit: "SHDN") }
            firstConversion.wait(on: clock)
            raw = try bus.readBigEndianWord(address: address, command: Register.ambientTemperature.rawValue)
        } catch let error as SensorError {
            throw error
        } catch let error as SensorBusError {
            throw .bus(error)
        } catch {
            throw .invalidData(sensor: "MCP9808", reason: "\(error)")
        }
        return TemperatureReading(celsius: Self.celsius(raw: raw))
    }

    /// Bits 15..13 are alert flags; bit 12 is the sign of a 13-bit two's complement value in 1/16 °C.
    public static func celsius(raw: UInt16) -> Double {
        var counts = Int(raw & 0x1FFF)
        if counts & 0x1000 != 0 { counts -= 0x2000 }
        return Double(counts) / 16
    }

    /// Out-of-range temperatures clamp to the 13-bit limits; NaN encodes 0 °C.
    public static func raw(celsius: Double) -> UInt16 {
        let counts = max(-4096, min(4095, Int(saturating: (celsius * 16).rounded())))
        return UInt16(truncatingIfNeeded: counts) & 0x1FFF
    }
}
