/// Sensirion SHTC3 temperature and humidity.
public struct SHTC3Driver: I2CDriverDescriptor {
    public let name = "shtc3"
    public let connection = SensorConnection.i2c(defaultAddress: SHTC3.defaultAddress)
    public let quantities: [Quantity] = [.temperature, .humidity]
    public init() {}

    public func makeSource(_ context: I2CDriverContext) throws(SensorError) -> any SensorSource {
        let chip = SHTC3(bus: context.bus, address: context.address, clock: context.clock)
        return DriverSource(offsets: context.offsets, setup: { () throws(SensorError) in try chip.verifyIdentity() },
                            read: { () throws(SensorError) in
            let reading = try chip.read()
            return Measurement(temperature: reading.celsius, humidity: reading.relativeHumidity)
        }, close: context.close)
    }

    public func makeSimulatedChip(_ simulation: SimulationSettings, address: UInt8, clock: any SensorClock) -> any SimulatedI2CDevice {
        SimulatedSHTC3(celsius: simulation.celsius ?? SimulationDefaults.celsius,
                       relativeHumidity: simulation.relativeHumidity ?? SimulationDefaults.relativeHumidity, clock: clock)
    }

    public func makeDemoChip(address: UInt8, clock: any SensorClock) -> any SimulatedI2CDevice {
        SimulatedSHTC3(celsius: 22.5, relativeHumidity: 48, clock: clock)
    }

    public func readOnce(_ request: SensorReadRequest) throws(SensorError) -> String {
        let context = request.chip
        let sensor = SHTC3(bus: context.bus, address: context.address, clock: context.clock)
        try sensor.verifyIdentity()
        let reading = try sensor.read()
        return "shtc3: " + request.temperature(reading.celsius) + request.humidity(reading.relativeHumidity)
    }
}

extension SensorDriver {
    public static let shtc3 = SensorDriver(SHTC3Driver())
}
