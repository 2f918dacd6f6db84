/// TI TMP117 body-grade thermometer.
public struct TMP117Driver: I2CDriverDescriptor {
    public let name = "tmp117"
    public let connection = SensorConnection.i2c(defaultAddress: TMP117.defaultAddress)
    public let quantities: [Quantity] = [.temperature]
    public let optionKeys = ["mode", "conversion-cycle", "averaging"]
    public init() {}

    /// `mode`, `conversion-cycle` and `averaging`; nil keeps the chip's power-on value.
    public struct Settings: DriverSettings, Defaultable {
        public var mode: ConversionMode?
        public var conversionCycle: TMP117.ConversionCycle?
        public var averaging: TMP117.Averaging?
        public init(mode: ConversionMode? = nil, conversionCycle: TMP117.ConversionCycle? = nil, averaging: TMP117.Averaging? = nil) {
            self.mode = mode
            self.conversionCycle = conversionCycle
            self.averaging = averaging
        }
        public init() { self.init(mode: nil) }

        /// What the chip is configured with: the power-on values where the options say nothing.
        public var chip: TMP117.Settings {
            let defaults = TMP117.Settings()
            return TMP117.Settings(mode: mode ?? defaults.mode, conversionCycle: conversionCycle ?? defaults.conversionCycle,
                                   averaging: averaging ?? defaults.averaging)
        }
    }

    public func readOption(_ key: String, from reader: any DriverOptionReader, into options: inout DriverOptions) {
        options.update(Settings.self) { settings in
            switch key {
            case "mode": settings.mode = reader.choice(key, of: ConversionMode.self)
            case "conversion-cycle": settings.conversionCycle = reader.choice(key, of: TMP117.ConversionCycle.self)
            case "averaging":
                settings.averaging = reader.oneOf(key, TMP117.Averaging.allCases.map(\.rawValue)).flatMap(TMP117.Averaging.init(rawValue:))
            default: break
            }
        }
    }

    public func checkOptions(_ options: DriverOptions, reader: any DriverOptionReader) {
        let settings = options.settings(Settings.self)
        if settings.mode == .oneShot, settings.conversionCycle != nil {
            reader.problem(at: "conversion-cycle",
                           "conversion-cycle sets the pace of mode: continuous; in one-shot mode the chip converts once per read, so leave it out")
        } else if let problem = settings.chip.problem {
            reader.problem(at: reader.has("conversion-cycle") ? "conversion-cycle" : "averaging", problem)
        }
    }

    public func makeSource(_ context: I2CDriverContext) throws(SensorError) -> any SensorSource {
        let chip = TMP117(bus: context.bus, address: context.address, settings: context.options.settings(Settings.self).chip, clock: context.clock)
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
        let sensor = TMP117(bus: context.bus, address: context.address, settings: context.options.settings(Settings.self).chip, clock: context.clock)
        try sensor.configure()
        return "tmp117: " + request.temperature(try sensor.read().celsius)
    }
}

extension SensorDriver {
    public static let tmp117 = SensorDriver(TMP117Driver())
}
