import Sensors

/// The hidden `--simulated` backend: the requested chip alone on simulated i2c-1, a temporary
/// 1-Wire/thermal tree, or a simulated GPIO chip, all with plausible scripted values.
struct SimulatedHardware {
    static let busNumber = 1
    let clock = SimulatedSensorClock()

    func i2cBus(_ number: Int, driver: SensorDriver) throws(SensorError) -> any I2CBus {
        guard number == Self.busNumber else { throw .bus(.busMissing(bus: number)) }
        let bus = SimulatedI2CBus(busNumber: number)
        if let descriptor = driver.i2c, let address = driver.defaultAddress {
            bus.attach(descriptor.makeDemoChip(address: address, clock: clock), at: address)
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
