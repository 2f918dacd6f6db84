import BLECore
import BridgeConfiguration
import Sensors
import Synchronization

/// The `simulated` board: every configured sensor is a register-level simulated chip on a simulated
/// bus (or a temporary sysfs tree), driven by the real drivers, so the whole bridge runs without
/// hardware. Values come from each sensor's `simulation` settings; `fail-after` makes the chip stop
/// answering (a NACK, as an unplugged sensor gives) to show fault handling.
public final class SimulatedBoard: Sendable {
    public let clock: any SensorClock
    private let buses = Mutex<[Int: SimulatedI2CBus]>([:])
    /// One chip per sensor for the board's life: a source reopened after a failure finds the same
    /// chip, in whatever state it was left (a heated die, a FIFO), as on real hardware.
    private let chips = Mutex<[String: any SimulatedI2CDevice]>([:])
    private let started: UInt64
    /// Real GPIO chips for gpio-pulse sensors (through libgpiod), or nil for a simulated line.
    private let gpioChips: [String]?

    /// `gpioChips` puts gpio-pulse sensors on those real chips, the line looked up as on a real
    /// board, while everything else stays simulated: real GPIO (gpio-sim in a VM, a missing chip
    /// in tests) beside simulated I2C.
    public init(clock: any SensorClock = SystemSensorClock(), gpioChips: [String]? = nil) {
        self.clock = clock
        self.started = clock.nowNanoseconds()
        self.gpioChips = gpioChips
    }

    /// The simulated adapter for bus N (created on first use, shared by the sensors on it).
    public func bus(_ number: Int) -> SimulatedI2CBus {
        buses.withLock { buses in
            if let bus = buses[number] { return bus }
            let bus = SimulatedI2CBus(busNumber: number)
            buses[number] = bus
            return bus
        }
    }

    func makeSource(for sensor: SensorConfiguration, heaterMemory: SHT4xHeaterCycle.Memory) throws(SensorError) -> any SensorSource {
        let settings = sensor.simulation
        let failAt = settings.failAfter.map { started.saturatingAdd(UInt64(max(0, $0.saturatingNanoseconds))) }
        switch sensor.driver.descriptor.connection {
        case .thermalZone, .oneWire:
            return try sysfsSource(for: sensor, failAt: failAt)
        case .gpio where gpioChips != nil:
            let line = try SensorSourceFactory.resolveLine(sensor.gpioLine ?? "", chips: gpioChips ?? [])
            return try SensorSourceFactory.pulseSource(line: line, sensor: sensor, clock: clock)
        case .kernel:
            return try kernelSource(for: sensor, failAt: failAt)
        case .gpio:
            let chip = SimulatedGPIOChip(name: "gpiochip0", lineNames: (0..<28).map { "GPIO\($0)" })
            let line: SimulatedGPIOLine
            do {
                let requested = sensor.gpioLine ?? "GPIO17"
                let offset = Int(requested) ?? Int(requested.dropFirst(4)) ?? 17
                line = try chip.simulatedLine(offset: offset)
            } catch { throw .gpio(error) }
            let pulses = PulseScript(clock: clock, beatsPerMinute: settings.beatsPerMinute ?? 72, failAt: failAt)
            return try SensorSourceFactory.pulseSource(line: line, sensor: sensor, clock: clock) { pulses.emitDue(on: line) }
        case let .i2c(defaultAddress):
            guard let descriptor = sensor.driver.i2c else {
                throw .unsupportedConfiguration(sensor: sensor.name, reason: "\(sensor.driver.rawValue) has no I2C descriptor")
            }
            let busNumber = sensor.i2cBus ?? 1
            let address = sensor.i2cAddress ?? defaultAddress
            let bus = bus(busNumber)
            let clock = self.clock
            let chip = chips.withLock { chips in
                if let existing = chips[sensor.name] { return existing }
                let made = descriptor.makeSimulatedChip(settings, address: address, clock: clock)
                chips[sensor.name] = made
                return made
            }
            bus.attach(chip, at: address)
            let source = try SensorSourceFactory.i2cSource(sensor: sensor, bus: bus, clock: clock, heaterMemory: heaterMemory)
            guard let failAt else { return source }
            return FailingAfter(source: source, failAt: failAt, clock: clock) { bus.inject(.nack, at: address) }
        }
    }

    /// A fake sysfs tree holding the named device with the channels the driver reads: temperature
    /// and humidity for a dht11-like IIO device (plus pressure when the file sets one), temperature
    /// (and humidity when set) for hwmon. `fail-after` removes the device, as an unbound driver does.
    private func kernelSource(for sensor: SensorConfiguration, failAt: UInt64?) throws(SensorError) -> any SensorSource {
        let settings = sensor.simulation
        let kind: KernelSensor.Kind = sensor.driver == .hwmon ? .hwmon : .iio
        let device = sensor.device ?? sensor.driver.rawValue
        let milli = { (value: Double) in String(Int(saturating: (value * 1000).rounded())) }
        var attributes: [String: String] = [:]
        switch kind {
        case .iio:
            attributes["in_temp_input"] = milli(settings.celsius ?? 21.5)
            attributes["in_humidityrelative_input"] = milli(settings.relativeHumidity ?? 45)
            if let pascals = settings.pascals ?? (sensor.publish.contains(.pressure) ? 101_325 : nil) {
                attributes["in_pressure_input"] = String(pascals / 1000)
            }
        case .hwmon:
            attributes["temp1_input"] = milli(settings.celsius ?? 21.5)
            if let humidity = settings.relativeHumidity ?? (sensor.publish.contains(.humidity) ? 45 : nil) {
                attributes["humidity1_input"] = milli(humidity)
            }
        }
        do {
            let tree = try SimulatedKernelSensorTree()
            // A device given by path lives at that path's last component inside the tree.
            let name = device.hasPrefix("/") ? sensor.driver.rawValue : device
            let directory = try tree.addDevice(kind, index: 0, name: name, attributes: attributes)
            var configured = sensor
            if device.hasPrefix("/") { configured.device = directory }
            let source = SensorSourceFactory.kernelSource(sensor: configured, root: tree.root) { _ = tree }
            return failAt.map { FailingAfter(source: source, failAt: $0, clock: clock) { try? tree.remove(kind, index: 0) } } ?? source
        } catch {
            throw .unavailable(sensor: sensor.name, reason: "cannot create the simulated sysfs tree: \(error)")
        }
    }

    private func sysfsSource(for sensor: SensorConfiguration, failAt: UInt64?) throws(SensorError) -> any SensorSource {
        let celsius = sensor.simulation.celsius ?? (sensor.driver == .cpuTemperature ? 48.3 : 19.625)
        let name = sensor.driver.rawValue
        do {
            if sensor.driver == .cpuTemperature {
                let tree = try SimulatedThermalTree()
                try tree.setZone(0, type: "cpu-thermal", milliCelsius: String(Int((celsius * 1000).rounded())))
                let driver = CPUTemperature(zones: tree.zones)
                let source = DriverSource(offsets: sensor.calibrationOffsets) { () throws(SensorError) in
                    Measurement(temperature: try driver.read().celsius)
                } close: { _ = tree }
                return failAt.map { FailingAfter(source: source, failAt: $0, clock: clock) { try? tree.setZone(0, type: "cpu-thermal", milliCelsius: "") } } ?? source
            }
            let tree = try SimulatedOneWireTree()
            let id = sensor.oneWireID ?? "28-00000a1b2c3d"
            try tree.setTemperature(id: id, celsius: celsius)
            let probe = DS18B20(bus: tree.bus, id: id)
            let source = DriverSource(offsets: sensor.calibrationOffsets) { () throws(SensorError) in
                Measurement(temperature: try probe.read().celsius)
            } close: { _ = tree }
            return failAt.map { FailingAfter(source: source, failAt: $0, clock: clock) { try? tree.unplug(id: id) } } ?? source
        } catch let error as SensorError {
            throw error
        } catch {
            throw .unavailable(sensor: name, reason: "cannot create the simulated sysfs tree: \(error)")
        }
    }
}

/// Runs `inject` once when the simulated chip's time to fail has come, then reads through it, so
/// the failure is produced by the real driver against a chip that stopped answering.
private final class FailingAfter: SensorSource {
    private let source: any SensorSource
    private let failAt: UInt64
    private let clock: any SensorClock
    private let inject: @Sendable () -> Void
    private let injected = Mutex(false)

    init(source: any SensorSource, failAt: UInt64, clock: any SensorClock, inject: @escaping @Sendable () -> Void) {
        self.source = source
        self.failAt = failAt
        self.clock = clock
        self.inject = inject
    }

    func read() throws(SensorError) -> Measurement {
        if clock.nowNanoseconds() >= failAt, injected.withLock({ done in defer { done = true }; return !done }) { inject() }
        return try source.read()
    }

    func close() { source.close() }
}

/// Edges of a steady pulse train, emitted on the simulated line as time passes (each read emits
/// the edges due since the previous one), and none after the script's failure time.
private final class PulseScript: Sendable {
    private let clock: any SensorClock
    private let periodNanoseconds: UInt64
    private let failAt: UInt64?
    private let next: Mutex<UInt64>

    init(clock: any SensorClock, beatsPerMinute: Double, failAt: UInt64?) {
        self.clock = clock
        let bpm = min(220, max(30, beatsPerMinute.isNaN ? 72 : beatsPerMinute))
        periodNanoseconds = UInt64(60e9 / bpm)
        self.failAt = failAt
        next = Mutex(clock.nowNanoseconds())
    }

    func emitDue(on line: SimulatedGPIOLine) {
        let now = min(clock.nowNanoseconds(), failAt ?? .max)
        let due: [GPIOEdgeEvent] = next.withLock { next in
            var edges: [GPIOEdgeEvent] = []
            while next <= now {
                edges.append(GPIOEdgeEvent(edge: .rising, timestampNanoseconds: next))
                edges.append(GPIOEdgeEvent(edge: .falling, timestampNanoseconds: next + 20_000_000))
                next += periodNanoseconds
            }
            return edges
        }
        if !due.isEmpty { line.emit(due) }
    }
}
