/// ASAIR AHT20 temperature and humidity.
public struct AHT20Driver: I2CDriverDescriptor {
    public let name = "aht20"
    public let connection = SensorConnection.i2c(defaultAddress: AHT20.defaultAddress)
    public let quantities: [Quantity] = [.temperature, .humidity]
    public init() {}

    public func makeSource(_ context: I2CDriverContext) throws(SensorError) -> any SensorSource {
        let chip = AHT20(bus: context.bus, address: context.address, clock: context.clock)
        return DriverSource(offsets: context.offsets, read: { () throws(SensorError) in
            let reading = try chip.read()
            return Measurement(temperature: reading.celsius, humidity: reading.relativeHumidity)
        }, close: context.close)
    }

    public func makeSimulatedChip(_ simulation: SimulationSettings, address: UInt8, clock: any SensorClock) -> any SimulatedI2CDevice {
        SimulatedAHT20(celsius: simulation.celsius ?? SimulationDefaults.celsius,
                       relativeHumidity: simulation.relativeHumidity ?? SimulationDefaults.relativeHumidity, clock: clock)
    }

    /// Uncalibrated, as a chip fresh from the reel is: the read shows the driver's initialisation.
    public func makeDemoChip(address: UInt8, clock: any SensorClock) -> any SimulatedI2CDevice {
        SimulatedAHT20(celsius: 22.5, relativeHumidity: 48, calibrated: false, clock: clock)
    }

    public func readOnce(_ request: SensorReadRequest) throws(SensorError) -> String {
        let context = request.chip
        let reading = try AHT20(bus: context.bus, address: context.address, clock: context.clock).read()
        return "aht20: " + request.temperature(reading.celsius) + request.humidity(reading.relativeHumidity)
    }
}

extension SensorDriver {
    public static let aht20 = SensorDriver(AHT20Driver())
}
