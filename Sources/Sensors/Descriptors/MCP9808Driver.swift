/// Microchip MCP9808 room thermometer.
public struct MCP9808Driver: I2CDriverDescriptor {
    public let name = "mcp9808"
    public let connection = SensorConnection.i2c(defaultAddress: MCP9808.defaultAddress)
    public let quantities: [Quantity] = [.temperature]
    public let optionKeys = ["resolution"]
    public let simulatedRegisters = [SimulatedRegisterRange(0x05...0x06, "the ambient temperature register", exact: true)]
    public init() {}

    /// `resolution` (nil keeps the chip's 0.0625 °C).
    public struct Settings: DriverSettings, Defaultable {
        public var resolution: MCP9808.Resolution?
        public init(resolution: MCP9808.Resolution? = nil) { self.resolution = resolution }
        public init() { self.init(resolution: nil) }
    }

    public func readOption(_ key: String, from reader: any DriverOptionReader, into options: inout DriverOptions) {
        guard key == "resolution" else { return }
        options[Settings.self] = Settings(resolution: reader.oneOf(key, MCP9808.Resolution.allCases.map(\.name), unit: " °C")
            .flatMap(MCP9808.Resolution.init(name:)))
    }

    public func makeSource(_ context: I2CDriverContext) throws(SensorError) -> any SensorSource {
        let chip = MCP9808(bus: context.bus, address: context.address, clock: context.clock)
        var setup: DriverSource.Setup?
        if let resolution = context.options.settings(Settings.self).resolution {
            setup = { @Sendable () throws(SensorError) in try chip.configure(resolution: resolution) }
        }
        return DriverSource(offsets: context.offsets, setup: setup,
                            read: { () throws(SensorError) in Measurement(temperature: try chip.read().celsius) }, close: context.close)
    }

    public func makeSimulatedChip(_ simulation: SimulationSettings, address: UInt8, clock: any SensorClock) -> any SimulatedI2CDevice {
        let chip = SimulatedMCP9808(celsius: simulation.celsius ?? SimulationDefaults.celsius, clock: clock)
        if let raw = SimulationDefaults.word(at: 0x05, in: simulation) { chip.setRawTemperature(raw) }
        return chip
    }

    public func makeDemoChip(address: UInt8, clock: any SensorClock) -> any SimulatedI2CDevice {
        SimulatedMCP9808(celsius: 21.25, clock: clock)
    }

    public func readOnce(_ request: SensorReadRequest) throws(SensorError) -> String {
        let context = request.chip
        let sensor = MCP9808(bus: context.bus, address: context.address, clock: context.clock)
        if let resolution = context.options.settings(Settings.self).resolution { try sensor.configure(resolution: resolution) }
        return "mcp9808: " + request.temperature(try sensor.read().celsius)
    }
}

extension SensorDriver {
    public static let mcp9808 = SensorDriver(MCP9808Driver())
}
