/// Maxim MAX30102 / MAX30101 pulse oximeters (one register map, two LED sets).
public struct MAX3010xDriver: I2CDriverDescriptor {
    public let variant: MAX3010x.Variant
    public var name: String { variant == .max30101 ? "max30101" : "max30102" }
    public let connection = SensorConnection.i2c(defaultAddress: MAX3010x.defaultAddress)
    public let quantities: [Quantity] = [.heartRate, .oxygenSaturation]
    public let optionKeys = ["sample-rate", "led-current-ma"]

    public init(variant: MAX3010x.Variant) { self.variant = variant }

    public func readOption(_ key: String, from reader: any DriverOptionReader, into options: inout DriverOptions) {
        PPGSettings.read(key, from: reader, into: &options, sampleRates: [50, 100, 200, 400], maximumMilliamps: 51)
    }

    public func makeSource(_ context: I2CDriverContext) throws(SensorError) -> any SensorSource {
        let chip = MAX3010x(bus: context.bus, address: context.address, variant: variant,
                            configuration: context.options.settings(PPGSettings.self).configuration(MAX3010x.Configuration()), clock: context.clock)
        return PPGDriverSupport.source(chip: chip, configure: chip.configure, fingerThreshold: 30_000, context: context)
    }

    /// A finger with a steady pulse.
    public func makeSimulatedChip(_ simulation: SimulationSettings, address: UInt8, clock: any SensorClock) -> any SimulatedI2CDevice {
        SimulatedMAX3010x(clock: clock, waveform: SimulatedFinger.steady(beatsPerMinute: simulation.beatsPerMinute))
    }

    public func makeDemoChip(address: UInt8, clock: any SensorClock) -> any SimulatedI2CDevice {
        SimulatedMAX3010x(clock: clock, waveform: SimulatedFinger.steady(beatsPerMinute: 72))
    }

    public func readOnce(_ request: SensorReadRequest) throws(SensorError) -> String {
        let context = request.chip
        let sensor = MAX3010x(bus: context.bus, address: context.address, variant: variant,
                              configuration: context.options.settings(PPGSettings.self).configuration(MAX3010x.Configuration()),
                              clock: context.clock)
        try sensor.configure()
        return try PPGDriverSupport.collectHeartRate(PPGHeartRateMonitor(sensor: sensor), pollMilliseconds: 200,
                                                     seconds: request.seconds, clock: context.clock, name: name)
    }
}

extension SensorDriver {
    public static let max30102 = SensorDriver(MAX3010xDriver(variant: .max30102))
    public static let max30101 = SensorDriver(MAX3010xDriver(variant: .max30101))
}
