/// TI TMP117 body-grade thermometer.
public struct TMP117Driver: I2CDriverDescriptor {
    public let name = "tmp117"
    public let connection = SensorConnection.i2c(defaultAddress: TMP117.defaultAddress)
    public let quantities: [Quantity] = [.temperature]
    public let optionKeys = ["mode", "conversion-cycle", "averaging"]
    public init() {}

    public func readOption(_ key: String, from reader: any DriverOptionReader, into options: inout DriverOptions) {
        switch key {
        case "mode": options.mode = reader.choice(key, of: ConversionMode.self)
        case "conversion-cycle": options.conversionCycle = reader.choice(key, of: TMP117.ConversionCycle.self)
        case "averaging": options.averaging = reader.oneOf(key, TMP117.Averaging.allCases.map(\.rawValue)).flatMap(TMP117.Averaging.init(rawValue:))
        default: break
        }
    }

    public func checkOptions(_ options: DriverOptions, reader: any DriverOptionReader) {
        if options.mode == .oneShot, options.conversionCycle != nil {
            reader.problem(at: "conversion-cycle",
                           "conversion-cycle sets the pace of mode: continuous; in one-shot mode the chip converts once per read, so leave it out")
        } else if let problem = options.tmp117Settings.problem {
            reader.problem(at: reader.has("conversion-cycle") ? "conversion-cycle" : "averaging", problem)
        }
    }

    public func makeSource(_ context: I2CDriverContext) throws(SensorError) -> any SensorSource {
        let chip = TMP117(bus: context.bus, address: context.address, settings: context.options.tmp117Settings, clock: context.clock)
        return DriverSource(offsets: context.offsets, setup: { () throws(SensorError) in try chip.configure() },
                            read: { () throws(SensorError) in Measurement(temperature: try chip.read().celsius) }, close: context.close)
    }

    public func makeSimulatedChip(_ simulation: SimulationSettings, address: UInt8, clock: any SensorClock) -> any SimulatedI2CDevice {
        SimulatedTMP117(celsius: simulation.celsius ?? SimulationDefaults.bodyCelsius, clock: clock)
    }

    public func makeDemoChip(address: UInt8, clock: any SensorClock) -> any SimulatedI2CDevice {
        SimulatedTMP117(celsius: 36.75, clock: clock)
    }

    public func readOnce(_ request: SensorReadRequest) throws(SensorError) -> String {
        let context = request.chip
        let sensor = TMP117(bus: context.bus, address: context.address, settings: context.options.tmp117Settings, clock: context.clock)
        try sensor.configure()
        return "tmp117: " + request.temperature(try sensor.read().celsius)
    }
}

extension SensorDriver {
    public static let tmp117 = SensorDriver(TMP117Driver())
}
