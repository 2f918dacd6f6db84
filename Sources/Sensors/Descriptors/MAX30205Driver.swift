/// Maxim MAX30205 body-temperature sensor.
public struct MAX30205Driver: I2CDriverDescriptor {
    public let name = "max30205"
    public let connection = SensorConnection.i2c(defaultAddress: MAX30205.defaultAddress)
    public let quantities: [Quantity] = [.temperature]
    public let optionKeys = ["mode", "data-format"]
    public init() {}

    public func readOption(_ key: String, from reader: any DriverOptionReader, into options: inout DriverOptions) {
        switch key {
        case "mode": options.mode = reader.choice(key, of: ConversionMode.self)
        case "data-format": options.dataFormat = reader.choice(key, of: MAX30205.DataFormat.self)
        default: break
        }
    }

    public func makeSource(_ context: I2CDriverContext) throws(SensorError) -> any SensorSource {
        let chip = MAX30205(bus: context.bus, address: context.address, settings: context.options.max30205Settings, clock: context.clock)
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
        let sensor = MAX30205(bus: context.bus, address: context.address, settings: context.options.max30205Settings, clock: context.clock)
        try sensor.configure()
        return "max30205: " + request.temperature(try sensor.read().celsius)
    }
}

extension SensorDriver {
    public static let max30205 = SensorDriver(MAX30205Driver())
}
