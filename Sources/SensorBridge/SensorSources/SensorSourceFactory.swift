import BridgeConfiguration
import Sensors
import Synchronization

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
        switch sensor.driver {
        case .cpuTemperature:
            let driver = CPUTemperature()
            return DriverSource(offsets: offsets) { () throws(SensorError) in Measurement(temperature: try driver.read().celsius) }
        case .ds18b20:
            let bus = OneWireBus()
            let id = sensor.oneWireID
            return DriverSource(offsets: offsets) { () throws(SensorError) in
                let probe: DS18B20
                if let id { probe = DS18B20(bus: bus, id: id) } else { probe = try DS18B20.first(on: bus) }
                return Measurement(temperature: try probe.read().celsius)
            }
        case .gpioPulse:
            let line = try Self.resolveLine(sensor.gpioLine ?? "", chips: board.gpioChips)
            return try Self.pulseSource(line: line, sensor: sensor, clock: clock)
        case .iio, .hwmon:
            return Self.kernelSource(sensor: sensor, root: KernelSensor.defaultRoot)
        default:
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
        let receiver = GPIOPulseReceiver(line: line, clock: clock, edge: sensor.options.gpioEdge, bias: sensor.options.gpioBias)
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
        let address = sensor.i2cAddress ?? sensor.driver.defaultAddress ?? 0
        let offsets = sensor.calibrationOffsets
        switch sensor.driver {
        case .tmp102:
            let chip = TMP102(bus: bus, address: address, clock: clock)
            let options = sensor.options
            // Configured only when asked, so a chip set up by other means keeps its settings.
            var setup: DriverSource.Setup?
            if options.conversionRate != nil || options.extendedMode != nil {
                setup = { @Sendable () throws(SensorError) in
                    try chip.configure(extendedMode: options.extendedMode ?? false, conversionRate: options.conversionRate)
                }
            }
            return DriverSource(offsets: offsets, setup: setup,
                                read: { () throws(SensorError) in Measurement(temperature: try chip.read().celsius) }, close: close)
        case .mcp9808:
            let chip = MCP9808(bus: bus, address: address, clock: clock)
            var setup: DriverSource.Setup?
            if let resolution = sensor.options.resolution {
                setup = { @Sendable () throws(SensorError) in try chip.configure(resolution: resolution) }
            }
            return DriverSource(offsets: offsets, setup: setup,
                                read: { () throws(SensorError) in Measurement(temperature: try chip.read().celsius) }, close: close)
        case .bme280:
            let options = sensor.options
            let chip = BME280(bus: bus, address: address, clock: clock,
                              temperature: DriverOptions.bme280Oversampling(options.temperatureOversampling, default: .x2),
                              pressure: DriverOptions.bme280Oversampling(options.pressureOversampling, default: .x16),
                              humidity: DriverOptions.bme280Oversampling(options.humidityOversampling, default: .x1),
                              filter: options.iirFilter ?? .off)
            return DriverSource(offsets: offsets, read: { () throws(SensorError) in
                let reading = try chip.read()
                return Measurement(temperature: reading.celsius, humidity: reading.relativeHumidity, pressure: reading.pascals)
            }, close: close)
        case .sht31:
            let chip = SHT31(bus: bus, address: address, clock: clock, repeatability: sensor.options.repeatability ?? .high)
            var setup: DriverSource.Setup?
            if let heater = sensor.options.heater {
                setup = { @Sendable () throws(SensorError) in try chip.setHeater(heater) }
            }
            return DriverSource(offsets: offsets, setup: setup, read: { () throws(SensorError) in
                let reading = try chip.read()
                return Measurement(temperature: reading.celsius, humidity: reading.relativeHumidity)
            }, close: close)
        case .sht4x:
            let chip = SHT4x(bus: bus, address: address, clock: clock, precision: sensor.options.precision ?? .high)
            let read: @Sendable () throws(SensorError) -> TemperatureHumidityReading
            if let schedule = sensor.options.sht4xHeaterSchedule {
                let cycle = SHT4xHeaterCycle(chip: chip, schedule: schedule, clock: clock, memory: heaterMemory)
                read = cycle.read
            } else {
                read = chip.read
            }
            return DriverSource(offsets: offsets, read: { () throws(SensorError) in
                let reading = try read()
                return Measurement(temperature: reading.celsius, humidity: reading.relativeHumidity)
            }, close: close)
        case .max17048:
            let chip = MAX17048(bus: bus, address: address)
            return DriverSource(offsets: offsets, read: { () throws(SensorError) in
                let reading = try chip.read()
                return Measurement(batteryPercent: reading.stateOfChargePercent,
                                   notice: reading.resetDetected ? MAX17048.resetNotice : nil)
            }, close: close)
        case .tmp117:
            let chip = TMP117(bus: bus, address: address, settings: sensor.options.tmp117Settings, clock: clock)
            return DriverSource(offsets: offsets, setup: { () throws(SensorError) in try chip.configure() },
                                read: { () throws(SensorError) in Measurement(temperature: try chip.read().celsius) }, close: close)
        case .max30205:
            let chip = MAX30205(bus: bus, address: address, settings: sensor.options.max30205Settings, clock: clock)
            return DriverSource(offsets: offsets, setup: { () throws(SensorError) in try chip.configure() },
                                read: { () throws(SensorError) in Measurement(temperature: try chip.read().celsius) }, close: close)
        case .mlx90614:
            let chip = MLX90614(bus: bus, address: address)
            return DriverSource(offsets: offsets, read: { () throws(SensorError) in
                Measurement(temperature: try chip.read().objectCelsius)
            }, close: close)
        case .aht20:
            let chip = AHT20(bus: bus, address: address, clock: clock)
            return DriverSource(offsets: offsets, read: { () throws(SensorError) in
                let reading = try chip.read()
                return Measurement(temperature: reading.celsius, humidity: reading.relativeHumidity)
            }, close: close)
        case .shtc3:
            let chip = SHTC3(bus: bus, address: address, clock: clock)
            return DriverSource(offsets: offsets, setup: { () throws(SensorError) in try chip.verifyIdentity() }, read: { () throws(SensorError) in
                let reading = try chip.read()
                return Measurement(temperature: reading.celsius, humidity: reading.relativeHumidity)
            }, close: close)
        case .max30100:
            let chip = MAX30100(bus: bus, address: address, configuration: sensor.options.max30100Configuration, clock: clock)
            return ppgSource(chip: chip, configure: chip.configure, fingerThreshold: MAX30100.fingerThreshold, clock: clock, close: close)
        case .max30102, .max30101:
            let chip = MAX3010x(bus: bus, address: address, variant: sensor.driver == .max30101 ? .max30101 : .max30102,
                                configuration: sensor.options.max3010xConfiguration, clock: clock)
            return ppgSource(chip: chip, configure: chip.configure, fingerThreshold: 30_000, clock: clock, close: close)
        case .ds18b20, .gpioPulse, .cpuTemperature, .iio, .hwmon:
            throw .unsupportedConfiguration(sensor: sensor.name, reason: "\(sensor.driver.rawValue) is not an I2C sensor")
        }
    }

    /// A pulse-oximeter chip configured on the first read (and after a reset), its FIFO drained into
    /// the heart-rate monitor on every read.
    private static func ppgSource(chip: any PPGFrontEnd, configure: @escaping @Sendable () throws(SensorError) -> Void,
                                  fingerThreshold: Double, clock: any SensorClock,
                                  close: @escaping @Sendable () -> Void) -> any SensorSource {
        let monitor = PPGHeartRateMonitor(sensor: chip, fingerThreshold: fingerThreshold)
        let configuredAt = Mutex<UInt64?>(nil)
        return DriverSource(offsets: [:], setup: { () throws(SensorError) in
            try configure()
            configuredAt.withLock { $0 = clock.nowNanoseconds() }
        }, read: { () throws(SensorError) in
            try monitor.poll()
            do throws(SensorError) {
                return Measurement(heartRate: try monitor.reading(), oxygenSaturation: monitor.oxygenSaturation())
            } catch {
                // Right after configuration the FIFO has not filled yet: still starting, not "no signal".
                let since = configuredAt.withLock { $0 }.map { clock.nowNanoseconds() &- $0 } ?? .max
                guard case .noSignal = error, since < PPGHeartRateMonitor.sampleTimeoutNanoseconds else { throw error }
                return Measurement(heartRate: HeartRateReading(beatsPerMinute: nil, rrIntervalsMilliseconds: [], contact: .unsupported),
                                   oxygenSaturation: .failure(.acquiring))
            }
        }, close: close)
    }
}
