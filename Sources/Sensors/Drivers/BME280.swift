/// Bosch BME280 temperature/pressure/humidity sensor (0x76 or 0x77), used in forced mode:
/// one measurement per read, sleeping in between, which suits a BLE bridge sampling every few seconds.
public final class BME280: Sendable {
    public enum Register: UInt8 {
        case calibration1 = 0x88
        case chipID = 0xD0
        case reset = 0xE0
        case calibration2 = 0xE1
        case controlHumidity = 0xF2
        case status = 0xF3
        case controlMeasurement = 0xF4
        case config = 0xF5
        case data = 0xF7
    }

    public static let chipID: UInt8 = 0x60
    static let statusMeasuring: UInt8 = 0x08
    static let statusUpdatingNVM: UInt8 = 0x01

    /// osrs_x register codes; `.skipped` disables the channel (its output reads 0x80000/0x8000).
    public enum Oversampling: UInt8, Sendable {
        case skipped = 0, x1 = 1, x2 = 2, x4 = 3, x8 = 4, x16 = 5

        var factor: Double {
            switch self {
            case .skipped: return 0
            case .x1: return 1
            case .x2: return 2
            case .x4: return 4
            case .x8: return 8
            case .x16: return 16
            }
        }
    }

    public let bus: any I2CBus
    public let address: UInt8
    public let clock: any SensorClock
    public let temperatureOversampling: Oversampling
    public let pressureOversampling: Oversampling
    public let humidityOversampling: Oversampling
    public let filter: FilterCoefficient

    /// IIR filter coefficient, config register 0xF5 bits 4:2 (datasheet 3.4.4, table 6 / 5.4.6).
    public enum FilterCoefficient: UInt8, Sendable, CaseIterable {
        case off = 0, x2 = 1, x4 = 2, x8 = 3, x16 = 4

        /// The name used in configuration files and on the command line: off, 2, 4, 8, 16.
        public var name: String { self == .off ? "off" : String(1 << Int(rawValue)) }

        public init?(name: String) {
            guard let match = Self.allCases.first(where: { $0.name == name }) else { return nil }
            self = match
        }
    }

    /// The 7-bit address the chip answers on when its address pins are left at their default.
    public static let defaultAddress: UInt8 = 0x76

    /// Datasheet table 1: start-up time 2 ms, in which the chip copies its NVM trimming (im_update).
    static let startUpMilliseconds = 2.0

    /// `filter` defaults to off, the datasheet's recommendation for forced mode at a low rate
    /// (3.5.1 weather monitoring): a filter would average readings seconds apart into a lagging value.
    /// It is always written, so no setting left behind by another program is inherited.
    public init(bus: any I2CBus, address: UInt8 = defaultAddress, clock: any SensorClock = SystemSensorClock(),
                temperature: Oversampling = .x1, pressure: Oversampling = .x1, humidity: Oversampling = .x1,
                filter: FilterCoefficient = .off) {
        self.bus = bus
        self.address = address
        self.clock = clock
        self.temperatureOversampling = temperature
        self.pressureOversampling = pressure
        self.humidityOversampling = humidity
        self.filter = filter
    }

    /// Datasheet 9.1 maximum measurement time in ms.
    public var maxMeasurementMilliseconds: Double {
        var time = 1.25 + 2.3 * temperatureOversampling.factor
        if pressureOversampling != .skipped { time += 2.3 * pressureOversampling.factor + 0.575 }
        if humidityOversampling != .skipped { time += 2.3 * humidityOversampling.factor + 0.575 }
        return time
    }

    public func readCalibration() throws(SensorError) -> BME280Calibration {
        do {
            let id = try bus.readByteData(address: address, command: Register.chipID.rawValue)
            guard id == Self.chipID else {
                throw SensorError.wrongChip(sensor: "BME280", expected: "chip ID 0x60",
                                            found: "chip ID \(id.i2cHex)" + (id == 0x58 ? " (a BMP280, which has no humidity)" : ""))
            }
            // The trimming is copied from NVM after power-up or reset (im_update); read too early it is garbage.
            if try bus.readByteData(address: address, command: Register.status.rawValue) & Self.statusUpdatingNVM != 0 {
                clock.sleep(milliseconds: Self.startUpMilliseconds)
                guard try bus.readByteData(address: address, command: Register.status.rawValue) & Self.statusUpdatingNVM == 0 else {
                    throw SensorError.conversionTimeout(sensor: "BME280", waitedMilliseconds: Self.startUpMilliseconds)
                }
            }
            let block1 = try bus.readI2CBlockData(address: address, command: Register.calibration1.rawValue, count: 26)
            let block2 = try bus.readI2CBlockData(address: address, command: Register.calibration2.rawValue, count: 7)
            let calibration = try BME280Calibration(block1: block1, block2: block2)
            if let problem = BME280Calibration.implausibility(block1: block1, block2: block2, calibration: calibration) {
                throw SensorError.invalidData(sensor: "BME280", reason: "implausible calibration: \(problem); the NVM read failed or this is not a working BME280")
            }
            return calibration
        } catch let error as SensorError {
            throw error
        } catch let error as SensorBusError {
            throw .bus(error)
        } catch {
            throw .invalidData(sensor: "BME280", reason: "calibration block too short: \(error)")
        }
    }

    /// Triggers one forced-mode measurement, waits the datasheet maximum time and compensates.
    public func read() throws(SensorError) -> EnvironmentReading {
        let calibration = try readCalibration()
        let raw: [UInt8]
        do {
            // ctrl_hum only takes effect after a write to ctrl_meas, so it goes first.
            try bus.writeByteData(address: address, command: Register.controlHumidity.rawValue, value: humidityOversampling.rawValue)
            // In sleep mode (where forced mode returns) config writes are taken; t_sb and spi3w_en stay 0.
            try bus.writeByteData(address: address, command: Register.config.rawValue, value: filter.rawValue << 2)
            let control = temperatureOversampling.rawValue << 5 | pressureOversampling.rawValue << 2 | 0x01
            try bus.writeByteData(address: address, command: Register.controlMeasurement.rawValue, value: control)
            clock.sleep(milliseconds: maxMeasurementMilliseconds)
            let status = try bus.readByteData(address: address, command: Register.status.rawValue)
            guard status & Self.statusMeasuring == 0 else {
                throw SensorError.conversionTimeout(sensor: "BME280", waitedMilliseconds: maxMeasurementMilliseconds)
            }
            raw = try bus.readI2CBlockData(address: address, command: Register.data.rawValue, count: 8)
        } catch let error as SensorError {
            throw error
        } catch let error as SensorBusError {
            throw .bus(error)
        } catch {
            throw .invalidData(sensor: "BME280", reason: "\(error)")
        }
        guard raw.count == 8 else { throw .invalidData(sensor: "BME280", reason: "short data block") }
        let adcP = Int32(raw[0]) << 12 | Int32(raw[1]) << 4 | Int32(raw[2] >> 4)
        let adcT = Int32(raw[3]) << 12 | Int32(raw[4]) << 4 | Int32(raw[5] >> 4)
        let adcH = Int32(raw[6]) << 8 | Int32(raw[7])
        // 0x80000 is the reset value of a channel that never converted.
        guard adcT != 0x80000 else {
            throw .invalidData(sensor: "BME280", reason: "temperature channel reads its reset value: no conversion happened")
        }
        // Enabled channels reading their reset value did not convert (e.g. ctrl_hum lost): a fault, not 0 %RH.
        if pressureOversampling != .skipped, adcP == 0x80000 {
            throw .invalidData(sensor: "BME280", reason: "pressure channel reads its reset value 0x80000: no conversion happened; check the configuration")
        }
        if humidityOversampling != .skipped, adcH == 0x8000 {
            throw .invalidData(sensor: "BME280", reason: "humidity channel reads its reset value 0x8000: no conversion happened; check ctrl_hum")
        }
        let (centi, tFine) = calibration.compensateTemperature(adc: adcT)
        // A disabled channel measured nothing: absent, not 0 Pa / 0 %RH.
        let pressure = pressureOversampling == .skipped ? nil : Double(calibration.compensatePressure(adc: adcP, tFine: tFine)) / 256
        let humidity = humidityOversampling == .skipped ? nil : Double(calibration.compensateHumidity(adc: adcH, tFine: tFine)) / 1024
        return EnvironmentReading(celsius: Double(centi) / 100, pascals: pressure, relativeHumidity: humidity)
    }
}
