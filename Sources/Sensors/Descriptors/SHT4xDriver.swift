/// Sensirion SHT40/41/45 temperature and humidity, with its heater.
public struct SHT4xDriver: I2CDriverDescriptor {
    public let name = "sht4x"
    public let connection = SensorConnection.i2c(defaultAddress: SHT4x.defaultAddress)
    public let quantities: [Quantity] = [.temperature, .humidity]
    public let optionKeys = ["heater", "precision"]
    public init() {}

    public func makeSource(_ context: I2CDriverContext) throws(SensorError) -> any SensorSource {
        let chip = SHT4x(bus: context.bus, address: context.address, clock: context.clock, precision: context.options.precision ?? .high)
        let read: @Sendable () throws(SensorError) -> TemperatureHumidityReading
        if let schedule = context.options.sht4xHeaterSchedule {
            let cycle = SHT4xHeaterCycle(chip: chip, schedule: schedule, clock: context.clock, memory: context.heaterMemory)
            read = cycle.read
        } else {
            read = chip.read
        }
        return DriverSource(offsets: context.offsets, read: { () throws(SensorError) in
            let reading = try read()
            return Measurement(temperature: reading.celsius, humidity: reading.relativeHumidity)
        }, close: context.close)
    }

    public func makeSimulatedChip(_ simulation: SimulationSettings, address: UInt8, clock: any SensorClock) -> any SimulatedI2CDevice {
        SimulatedSHT4x(celsius: simulation.celsius ?? SimulationDefaults.celsius,
                       relativeHumidity: simulation.relativeHumidity ?? SimulationDefaults.relativeHumidity, clock: clock)
    }

    public func makeDemoChip(address: UInt8, clock: any SensorClock) -> any SimulatedI2CDevice {
        SimulatedSHT4x(celsius: 22.5, relativeHumidity: 48, clock: clock)
    }

    public func readOnce(_ request: SensorReadRequest) throws(SensorError) -> String {
        let context = request.chip, options = context.options
        let sensor = SHT4x(bus: context.bus, address: context.address, clock: context.clock, precision: options.precision ?? .high)
        let reading = if let pulse = options.heaterPulse { try sensor.heat(pulse) } else { try sensor.read() }
        return "sht4x: " + request.temperature(reading.celsius) + request.humidity(reading.relativeHumidity)
            + (options.heaterPulse.map { " (measured at the end of a heater pulse, \($0): the hot die, not the ambient values)" } ?? "")
    }
}

extension SensorDriver {
    public static let sht4x = SensorDriver(SHT4xDriver())
}
