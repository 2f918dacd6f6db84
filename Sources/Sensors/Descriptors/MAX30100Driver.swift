/// Maxim MAX30100 pulse oximeter.
public struct MAX30100Driver: I2CDriverDescriptor {
    public let name = "max30100"
    public let connection = SensorConnection.i2c(defaultAddress: MAX30100.defaultAddress)
    public let quantities: [Quantity] = [.heartRate, .oxygenSaturation]
    public let optionKeys = ["sample-rate", "led-current-ma"]
    /// Its FIFO holds 16 samples, 160 ms at 100 Hz.
    public let defaultPollInterval = Duration.milliseconds(100)
    public let pollRange = Duration.milliseconds(50) ... .milliseconds(150)
    public init() {}

    public func readOption(_ key: String, from reader: any DriverOptionReader, into options: inout DriverOptions) {
        PPGSettings.read(key, from: reader, into: &options, sampleRates: MAX30100.allowedSampleRates, maximumMilliamps: 50)
    }

    public func makeSource(_ context: I2CDriverContext) throws(SensorError) -> any SensorSource {
        let chip = MAX30100(bus: context.bus, address: context.address, configuration: context.options.settings(PPGSettings.self).configuration(MAX30100.Configuration()),
                            clock: context.clock)
        return PPGDriverSupport.source(chip: chip, configure: chip.configure, fingerThreshold: MAX30100.fingerThreshold, context: context)
    }

    public func makeSimulatedChip(_ simulation: SimulationSettings, address: UInt8, clock: any SensorClock) -> any SimulatedI2CDevice {
        SimulatedMAX30100(clock: clock, waveform: SimulatedFinger.steady16Bit(beatsPerMinute: simulation.beatsPerMinute))
    }

    public func makeDemoChip(address: UInt8, clock: any SensorClock) -> any SimulatedI2CDevice {
        SimulatedMAX30100(clock: clock, waveform: SimulatedFinger.steady16Bit(beatsPerMinute: 72))
    }

    public func readOnce(_ request: SensorReadRequest) throws(SensorError) -> String {
        let context = request.chip
        let sensor = MAX30100(bus: context.bus, address: context.address, configuration: context.options.settings(PPGSettings.self).configuration(MAX30100.Configuration()),
                              clock: context.clock)
        try sensor.configure()
        return try PPGDriverSupport.collectHeartRate(PPGHeartRateMonitor(sensor: sensor, fingerThreshold: MAX30100.fingerThreshold),
                                                     pollMilliseconds: 100, seconds: request.seconds, clock: context.clock, name: name)
    }
}

extension SensorDriver {
    public static let max30100 = SensorDriver(MAX30100Driver())
}
