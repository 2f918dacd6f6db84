/// Melexis MLX90614 infrared thermometer: the object (skin) temperature is published; the chip's
/// own ambient reading is shown by `sensor read`.
public struct MLX90614Driver: I2CDriverDescriptor {
    public let name = "mlx90614"
    public let connection = SensorConnection.i2c(defaultAddress: MLX90614.defaultAddress)
    public let quantities: [Quantity] = [.temperature]
    public init() {}

    public func makeSource(_ context: I2CDriverContext) throws(SensorError) -> any SensorSource {
        let chip = MLX90614(bus: context.bus, address: context.address)
        return DriverSource(offsets: context.offsets, read: { () throws(SensorError) in
            Measurement(temperature: try chip.read().objectCelsius)
        }, close: context.close)
    }

    public func makeSimulatedChip(_ simulation: SimulationSettings, address: UInt8, clock: any SensorClock) -> any SimulatedI2CDevice {
        SimulatedMLX90614(objectCelsius: simulation.celsius ?? SimulationDefaults.bodyCelsius, ambientCelsius: 23, address: address)
    }

    public func makeDemoChip(address: UInt8, clock: any SensorClock) -> any SimulatedI2CDevice {
        SimulatedMLX90614(objectCelsius: 34.51, ambientCelsius: 23.25, address: address)
    }

    public func readOnce(_ request: SensorReadRequest) throws(SensorError) -> String {
        let context = request.chip
        let reading = try MLX90614(bus: context.bus, address: context.address).read()
        // The offset calibrates the published object temperature; the chip's own ambient is shown as measured.
        return "mlx90614: object " + request.temperature(reading.objectCelsius)
            + ", ambient " + ReadingText.temperature(reading.ambientCelsius, unit: request.unit)
    }
}

extension SensorDriver {
    public static let mlx90614 = SensorDriver(MLX90614Driver())
}
