import Sensors

/// The hidden `--simulated` backend: the requested chip alone on simulated i2c-1, a temporary
/// 1-Wire/thermal tree, or a simulated GPIO chip, all with plausible scripted values.
struct SimulatedHardware {
    static let busNumber = 1
    let clock = SimulatedSensorClock()

    func i2cBus(_ number: Int, driver: SensorDriver) throws(SensorError) -> any I2CBus {
        guard number == Self.busNumber else { throw .bus(.busMissing(bus: number)) }
        let bus = SimulatedI2CBus(busNumber: number)
        guard let address = driver.defaultAddress else { return bus }
        switch driver {
        case .tmp102: bus.attach(SimulatedTMP102(celsius: 23.5, clock: clock), at: address)
        case .mcp9808: bus.attach(SimulatedMCP9808(celsius: 21.25, clock: clock), at: address)
        case .bme280:
            let chip = SimulatedBME280(clock: clock)
            chip.setEnvironment(celsius: 21.5, pascals: 101_325, relativeHumidity: 40)
            bus.attach(chip, at: address)
        case .sht31: bus.attach(SimulatedSHT31(celsius: 22.5, relativeHumidity: 48, clock: clock), at: address)
        case .sht4x: bus.attach(SimulatedSHT4x(celsius: 22.5, relativeHumidity: 48, clock: clock), at: address)
        case .max30102, .max30101:
            bus.attach(SimulatedMAX3010x(clock: clock, waveform: SimulatedFinger.steady(beatsPerMinute: 72)), at: address)
        case .max17048: bus.attach(SimulatedMAX17048(cellVolts: 3.92, percent: 81.5), at: address)
        case .tmp117: bus.attach(SimulatedTMP117(celsius: 36.75, clock: clock), at: address)
        case .max30205: bus.attach(SimulatedMAX30205(celsius: 36.9, clock: clock), at: address)
        case .mlx90614: bus.attach(SimulatedMLX90614(objectCelsius: 34.51, ambientCelsius: 23.25, address: address), at: address)
        case .aht20: bus.attach(SimulatedAHT20(celsius: 22.5, relativeHumidity: 48, calibrated: false, clock: clock), at: address)
        case .shtc3: bus.attach(SimulatedSHTC3(celsius: 22.5, relativeHumidity: 48, clock: clock), at: address)
        case .max30100:
            bus.attach(SimulatedMAX30100(clock: clock, waveform: SimulatedFinger.steady16Bit(beatsPerMinute: 72)), at: address)
        case .ds18b20, .gpioPulse, .cpuTemperature, .iio, .hwmon: break
        }
        return bus
    }

    func gpioChip(_ name: String) throws(SensorError) -> SimulatedGPIOChip {
        guard name == "gpiochip0" || name == "0" else { throw .gpio(.chipNotFound(name)) }
        return SimulatedGPIOChip(name: "gpiochip0", lineNames: (0..<28).map { "GPIO\($0)" })
    }

    /// Emits a 72 BPM pulse train on the line for `seconds` of simulated time.
    func drivePulses(on line: SimulatedGPIOLine, seconds: Double) {
        let origin = clock.nowNanoseconds()
        let count = Int(saturating: seconds / (60.0 / 72))
        let train = PulseTrain(rrIntervalsMilliseconds: Array(repeating: 833, count: max(0, count - 1)), start: 0.2)
        line.emit(train.edges(originNanoseconds: origin))
    }
}
