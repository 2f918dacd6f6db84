import BridgeConfiguration
import Sensors

/// Builds the source for a configured sensor: real hardware, or a simulated chip on the simulated board.
public struct SensorSourceFactory: Sendable {
    public let board: BoardProfile
    public let simulation: SimulatedBoard?

    public init(board: BoardProfile, simulation: SimulatedBoard? = nil) {
        self.board = board
        self.simulation = simulation
    }

    /// Opening can fail (no /dev/i2c-N, GPIO line missing): the bridge reports it like a failed read
    /// and retries with back-off, so the other sensors keep serving.
    /// `heaterMemory` must outlive the source: whoever reopens a sensor's source passes the same
    /// one each time (the bridge keeps one per sensor), or a failed heater pulse loses its cool-down.
    public func makeSource(for sensor: SensorConfiguration,
                           heaterMemory: SHT4xHeaterCycle.Memory) throws(SensorError) -> any SensorSource {
        if let simulation { return try simulation.makeSource(for: sensor, heaterMemory: heaterMemory) }
        let clock = SystemSensorClock()
        let offsets = sensor.calibrationOffsets
        switch sensor.driver.descriptor.connection {
        case .thermalZone:
            let driver = CPUTemperature()
            return DriverSource(offsets: offsets) { () throws(SensorError) in Measurement(temperature: try driver.read().celsius) }
        case .oneWire:
            let bus = OneWireBus()
            let id = sensor.oneWireID
            return DriverSource(offsets: offsets) { () throws(SensorError) in
                let probe: DS18B20
                if let id { probe = DS18B20(bus: bus, id: id) } else { probe = try DS18B20.first(on: bus) }
                return Measurement(temperature: try probe.read().celsius)
            }
        case .gpio:
            let line = try Self.resolveLine(sensor.gpioLine ?? "", chips: board.gpioChips)
            return try Self.pulseSource(line: line, sensor: sensor, clock: clock)
        case .kernel:
            return Self.kernelSource(sensor: sensor, root: KernelSensor.defaultRoot)
        case .i2c:
            let busNumber = sensor.i2cBus ?? board.i2cBus
            let bus: any I2CBus
            do { bus = try LinuxI2CBus(busNumber: busNumber) } catch { throw .bus(error) }
            return try Self.i2cSource(sensor: sensor, bus: bus, clock: clock, heaterMemory: heaterMemory)
        }
    }

    /// A header line by name on the first board chip that has it: chip numbering changed between
    /// kernels on the Pi 5, names did not.
    static func resolveLine(_ name: String, chips: [String]) throws(SensorError) -> any GPIOLine {
        var lastError = GPIOError.lineNotFound(chip: chips.joined(separator: ", "), line: name)
        for chipName in chips {
            do {
                let chip = try LinuxGPIOChip(name: chipName)
                if let offset = Int(name) { return try chip.line(offset: offset) }
                return try chip.line(named: name)
            } catch {
                lastError = error
            }
        }
        throw .gpio(lastError)
    }

    static func pulseSource(line: any GPIOLine, sensor: SensorConfiguration, clock: any SensorClock,
                            beforeRead: @escaping @Sendable () -> Void = {}) throws(SensorError) -> any SensorSource {
        let settings = sensor.options.settings(GPIOPulseDriver.Settings.self)
        let receiver = GPIOPulseReceiver(line: line, clock: clock, edge: settings.edgeSelection, bias: settings.lineBias)
        try receiver.start()
        return DriverSource(offsets: [:], read: { () throws(SensorError) in
            beforeRead()
            return Measurement(heartRate: try receiver.reading())
        }, close: { receiver.stop() })
    }

    /// A device the kernel drives: the published quantities must be among its channels.
    static func kernelSource(sensor: SensorConfiguration, root: String, close: @escaping @Sendable () -> Void = {}) -> any SensorSource {
        let reader = KernelSensor(kind: sensor.driver == .hwmon ? .hwmon : .iio, device: sensor.device ?? "", root: root)
        let required = sensor.publish.map(\.quantity)
        return DriverSource(offsets: sensor.calibrationOffsets, read: { () throws(SensorError) in
            let reading = try reader.read(required: required)
            return Measurement(temperature: reading.celsius, humidity: reading.relativeHumidity, pressure: reading.pascals)
        }, close: close)
    }

    static func i2cSource(sensor: SensorConfiguration, bus: any I2CBus, clock: any SensorClock,
                          heaterMemory: SHT4xHeaterCycle.Memory = .init(),
                          close: @escaping @Sendable () -> Void = {}) throws(SensorError) -> any SensorSource {
        guard let descriptor = sensor.driver.i2c, let defaultAddress = sensor.driver.defaultAddress else {
            throw .unsupportedConfiguration(sensor: sensor.name, reason: "\(sensor.driver.rawValue) is not an I2C sensor")
        }
        return try descriptor.makeSource(I2CDriverContext(
            bus: bus, address: sensor.i2cAddress ?? defaultAddress, clock: clock, options: sensor.options,
            offsets: sensor.calibrationOffsets, heaterMemory: heaterMemory, close: close))
    }
}
