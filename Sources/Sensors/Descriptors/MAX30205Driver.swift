/// Maxim MAX30205 body-temperature sensor.
public struct MAX30205Driver: I2CDriverDescriptor {
    public let name = "max30205"
    public let connection = SensorConnection.i2c(defaultAddress: MAX30205.defaultAddress)
    public let quantities: [Quantity] = [.temperature]
    public let optionKeys = ["mode", "data-format"]
    public init() {}

    /// `mode` and `data-format`; nil keeps the chip's power-on value.
    public struct Settings: DriverSettings, Defaultable {
        public var mode: ConversionMode?
        public var dataFormat: MAX30205.DataFormat?
        public init(mode: ConversionMode? = nil, dataFormat: MAX30205.DataFormat? = nil) {
            self.mode = mode
            self.dataFormat = dataFormat
        }
        public init() { self.init(mode: nil) }

        /// What the chip is configured with: the power-on values where the options say nothing.
        public var chip: MAX30205.Settings {
            let defaults = MAX30205.Settings()
            return MAX30205.Settings(mode: mode ?? defaults.mode, dataFormat: dataFormat ?? defaults.dataFormat)
        }
    }

    public func readOption(_ key: String, from reader: any DriverOptionReader, into options: inout DriverOptions) {
        options.update(Settings.self) { settings in
            switch key {
            case "mode": settings.mode = reader.choice(key, of: ConversionMode.self)
            case "data-format": settings.dataFormat = reader.choice(key, of: MAX30205.DataFormat.self)
            default: break
            }
        }
    }

    public func makeSource(_ context: I2CDriverContext) throws(SensorError) -> any SensorSource {
        let chip = MAX30205(bus: context.bus, address: context.address, settings: context.options.settings(Settings.self).chip, clock: context.clock)
        return DriverSource(offsets: context.offsets, setup: { () throws(SensorError) in try chip.configure() },
                            read: { () throws(SensorError) in Measurement(temperature: try chip.read().celsius) }, close: context.close)
    }

    public func makeSimulatedChip(_ simulation: SimulationSettings, address: UInt8, clock: any SensorClock) -> any SimulatedI2CDevice {
        SimulatedMAX30205(celsius: simulation.celsius ?? SimulationDefaults.bodyCelsius, clock: clock)
    }

    public func makeDemoChip(address: UInt8, clock: any SensorClock) -> any SimulatedI2CDevice {
        SimulatedMAX30205(celsius: 36.9, clock: clock)
    }

    public func readOnce(_ request: SensorReadRequest) throws(SensorError) -> String {
        let context = request.chip
        let sensor = MAX30205(bus: context.bus, address: context.address, settings: context.options.settings(Settings.self).chip, clock: context.clock)
        try sensor.configure()
        return "max30205: " + request.temperature(try sensor.read().celsius)
    }
}

extension SensorDriver {
    public static let max30205 = SensorDriver(MAX30205Driver())
}
