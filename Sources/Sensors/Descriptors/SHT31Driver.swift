/// Sensirion SHT31 temperature and humidity.
public struct SHT31Driver: I2CDriverDescriptor {
    public let name = "sht31"
    public let connection = SensorConnection.i2c(defaultAddress: SHT31.defaultAddress)
    public let quantities: [Quantity] = [.temperature, .humidity]
    public let optionKeys = ["repeatability", "heater"]
    public init() {}

    /// `repeatability` (nil: high) and `heater` (on raises the temperature reading: diagnosis only).
    public struct Settings: DriverSettings, Defaultable {
        public var repeatability: SHT31.Repeatability?
        public var heater: Bool?
        public init(repeatability: SHT31.Repeatability? = nil, heater: Bool? = nil) {
            self.repeatability = repeatability
            self.heater = heater
        }
        public init() { self.init(repeatability: nil) }
    }

    public func readOption(_ key: String, from reader: any DriverOptionReader, into options: inout DriverOptions) {
        options.update(Settings.self) { settings in
            switch key {
            case "repeatability": settings.repeatability = reader.choice(key, of: SHT31.Repeatability.self)
            case "heater": settings.heater = reader.onOff(key)
            default: break
            }
        }
    }

    public func makeSource(_ context: I2CDriverContext) throws(SensorError) -> any SensorSource {
        let settings = context.options.settings(Settings.self)
        let chip = SHT31(bus: context.bus, address: context.address, clock: context.clock, repeatability: settings.repeatability ?? .high)
        var setup: DriverSource.Setup?
        if let heater = settings.heater {
            setup = { @Sendable () throws(SensorError) in try chip.setHeater(heater) }
        }
        return DriverSource(offsets: context.offsets, setup: setup, read: { () throws(SensorError) in
            let reading = try chip.read()
            return Measurement(temperature: reading.celsius, humidity: reading.relativeHumidity)
        }, close: context.close)
    }

    public func makeSimulatedChip(_ simulation: SimulationSettings, address: UInt8, clock: any SensorClock) -> any SimulatedI2CDevice {
        SimulatedSHT31(celsius: simulation.celsius ?? SimulationDefaults.celsius,
                       relativeHumidity: simulation.relativeHumidity ?? SimulationDefaults.relativeHumidity, clock: clock)
    }

    public func makeDemoChip(address: UInt8, clock: any SensorClock) -> any SimulatedI2CDevice {
        SimulatedSHT31(celsius: 22.5, relativeHumidity: 48, clock: clock)
    }

    public func readOnce(_ request: SensorReadRequest) throws(SensorError) -> String {
        let context = request.chip, options = context.options.settings(Settings.self)
        let sensor = SHT31(bus: context.bus, address: context.address, clock: context.clock, repeatability: options.repeatability ?? .high)
        if let heater = options.heater { try sensor.setHeater(heater) }
        let reading = try sensor.read()
        return "sht31: " + request.temperature(reading.celsius) + request.humidity(reading.relativeHumidity)
            + (options.heater == true ? " (heater on: not the ambient temperature)" : "")
    }
}

extension SensorDriver {
    public static let sht31 = SensorDriver(SHT31Driver())
}
