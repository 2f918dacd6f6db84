/// TI TMP102 room thermometer.
public struct TMP102Driver: I2CDriverDescriptor {
    public let name = "tmp102"
    public let connection = SensorConnection.i2c(defaultAddress: TMP102.defaultAddress)
    public let quantities: [Quantity] = [.temperature]
    public let optionKeys = ["conversion-rate", "extended-mode"]
    public let simulatedRegisters = [SimulatedRegisterRange(0x00...0x01, "the temperature register", exact: true)]
    public init() {}

    /// `conversion-rate` (nil keeps the chip's 4 Hz) and `extended-mode` (13-bit, up to 150 °C).
    public struct Settings: DriverSettings, Defaultable {
        public var conversionRate: TMP102.ConversionRate?
        public var extendedMode: Bool?
        public init(conversionRate: TMP102.ConversionRate? = nil, extendedMode: Bool? = nil) {
            self.conversionRate = conversionRate
            self.extendedMode = extendedMode
        }
        public init() { self.init(conversionRate: nil) }
    }

    public func readOption(_ key: String, from reader: any DriverOptionReader, into options: inout DriverOptions) {
        options.update(Settings.self) { settings in
            switch key {
            case "conversion-rate":
                settings.conversionRate = reader.oneOf(key, TMP102.ConversionRate.allCases.map(\.name), unit: " Hz")
                    .flatMap(TMP102.ConversionRate.init(name:))
            case "extended-mode": settings.extendedMode = reader.onOff(key)
            default: break
            }
        }
    }

    public func makeSource(_ context: I2CDriverContext) throws(SensorError) -> any SensorSource {
        let chip = TMP102(bus: context.bus, address: context.address, clock: context.clock)
        let options = context.options.settings(Settings.self)
        // Configured only when asked, so a chip set up by other means keeps its settings.
        var setup: DriverSource.Setup?
        if options.conversionRate != nil || options.extendedMode != nil {
            setup = { @Sendable () throws(SensorError) in
                try chip.configure(extendedMode: options.extendedMode ?? false, conversionRate: options.conversionRate)
            }
        }
        return DriverSource(offsets: context.offsets, setup: setup,
                            read: { () throws(SensorError) in Measurement(temperature: try chip.read().celsius) }, close: context.close)
    }

    public func makeSimulatedChip(_ simulation: SimulationSettings, address: UInt8, clock: any SensorClock) -> any SimulatedI2CDevice {
        let chip = SimulatedTMP102(celsius: simulation.celsius ?? SimulationDefaults.celsius, clock: clock)
        if let raw = SimulationDefaults.word(at: 0x00, in: simulation) { chip.setRawTemperature(raw) }
        return chip
    }

    public func makeDemoChip(address: UInt8, clock: any SensorClock) -> any SimulatedI2CDevice {
        SimulatedTMP102(celsius: 23.5, clock: clock)
    }

    public func readOnce(_ request: SensorReadRequest) throws(SensorError) -> String {
        let context = request.chip, options = context.options.settings(Settings.self)
        let sensor = TMP102(bus: context.bus, address: context.address, clock: context.clock)
        if options.extendedMode != nil || options.conversionRate != nil {
            try sensor.configure(extendedMode: options.extendedMode ?? false, conversionRate: options.conversionRate)
        }
        return "tmp102: " + request.temperature(try sensor.read().celsius)
    }
}

extension SensorDriver {
    public static let tmp102 = SensorDriver(TMP102Driver())
}
