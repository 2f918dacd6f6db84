import ArgumentParser
import Foundation
import Sensors

/// `blesensor sensor read DRIVER`: one reading, printed with units.
public struct SensorReadCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "read",
        abstract: "Read a sensor once and print the value with units."
    )

    @Argument(help: "Driver: \(SensorDriver.allCases.map(\.rawValue).joined(separator: ", ")).")
    public var driver: SensorDriver

    @Option(help: "I2C bus number N of /dev/i2c-N.")
    public var bus: Int = 1

    @Option(help: "I2C address, e.g. 0x48 (default: the driver's usual address).")
    public var address: String?

    @Option(help: "GPIO chip for gpio-pulse.")
    public var chip: String = "gpiochip0"

    @Option(help: "GPIO line offset or name for gpio-pulse.")
    public var line: String?

    @Option(help: "1-Wire device id for ds18b20, e.g. 28-0316a2795dff (default: the first one).")
    public var id: String?

    @Option(help: "iio / hwmon: the kernel device's name (e.g. dht11, bme280, w1_slave_temp) or its sysfs directory.")
    public var device: String?

    @Option(help: "tmp117 / max30205: continuous or one-shot conversions.")
    public var mode: String?

    @Option(help: "tmp117: time between conversions: \(TMP117.ConversionCycle.allCases.map(\.rawValue).joined(separator: ", ")).")
    public var conversionCycle: String?

    @Option(help: "tmp117: conversions averaged per result: 1, 8, 32 or 64.")
    public var averaging: Int?

    @Option(help: "max30205: normal or extended (+64 °C) data format.")
    public var dataFormat: String?

    @Option(help: "Seconds to collect pulses for heart-rate drivers (0 < s <= 3600).")
    public var seconds: Double = 8

    @Flag(help: .hidden)
    public var simulated = false

    public init() {}

    public func run() throws {
        do {
            print(try execute())
        } catch {
            FileHandle.standardError.write(Data("error: \(error.description)\n".utf8))
            throw ExitCode(error.exitCode)
        }
    }

    /// Performs the read and returns the text to print; separated from `run` so tests can check it.
    /// Arguments are checked before any hardware is touched.
    public func execute() throws(SensorCommandError) -> String {
        let arguments = try validatedArguments()
        do {
            return try read(arguments)
        } catch {
            throw .sensor(error)
        }
    }

    static let maximumSeconds = 3600.0

    /// The arguments the chosen driver needs, checked.
    struct ValidatedArguments {
        var address: UInt8?
        var line: String?
        var tmp117 = TMP117.Settings()
        var max30205 = MAX30205.Settings()
    }

    func validatedArguments() throws(SensorCommandError) -> ValidatedArguments {
        // Checked here because a non-finite or huge value would trap in the integer conversions below.
        guard seconds.isFinite, seconds > 0, seconds <= Self.maximumSeconds else {
            throw .usage("--seconds must be a number of seconds with 0 < s <= \(Int(Self.maximumSeconds)), got \(seconds)")
        }
        switch driver {
        case .gpioPulse:
            guard !chip.isEmpty else { throw .usage("--chip must name a GPIO chip, e.g. gpiochip0 (list them with gpiodetect)") }
            guard let line, !line.isEmpty else {
                throw .usage("gpio-pulse needs --line: a line offset such as 17 or a name such as GPIO17 (list them with gpioinfo)")
            }
            return ValidatedArguments(line: line)
        case .ds18b20:
            // The id becomes a sysfs path component, so it must be a plain name.
            if let id, id.isEmpty || id.contains("/") || id.hasPrefix(".") {
                throw .usage("'\(id)' is not a 1-Wire device id: use the name from /sys/bus/w1/devices, e.g. 28-0316a2795dff")
            }
            return ValidatedArguments()
        case .cpuTemperature:
            return ValidatedArguments()
        case .iio, .hwmon:
            let example = driver == .iio ? "dht11 (cat /sys/bus/iio/devices/*/name)" : "w1_slave_temp (cat /sys/class/hwmon/*/name)"
            guard let device, !device.isEmpty, device.hasPrefix("/") || !device.contains("/") else {
                throw .usage("\(driver.rawValue) needs --device: the kernel device's name, e.g. \(example), or its sysfs directory")
            }
            return ValidatedArguments()
        default:
            var arguments = ValidatedArguments(address: try parsedAddress())
            try checkChipSettings(&arguments)
            return arguments
        }
    }

    /// The chip settings, with the names and values the configuration file's options take.
    func checkChipSettings(_ arguments: inout ValidatedArguments) throws(SensorCommandError) {
        func refuse(_ option: String, unless drivers: [SensorDriver]) throws(SensorCommandError) {
            guard !drivers.contains(driver) else { return }
            throw .usage("\(option) applies to \(drivers.map(\.rawValue).joined(separator: " and ")), not to \(driver.rawValue)")
        }
        func choice<T: RawRepresentable>(_ option: String, _ text: String, _ all: [T]) throws(SensorCommandError) -> T where T.RawValue == String {
            guard let value = all.first(where: { $0.rawValue == text }) else {
                throw .usage("\(option) must be one of \(all.map(\.rawValue).joined(separator: ", ")), got '\(text)'")
            }
            return value
        }
        if device != nil { try refuse("--device", unless: [.iio, .hwmon]) }
        if let mode {
            try refuse("--mode", unless: [.tmp117, .max30205])
            let value = try choice("--mode", mode, ConversionMode.allCases)
            arguments.tmp117.mode = value
            arguments.max30205.mode = value
        }
        if let conversionCycle {
            try refuse("--conversion-cycle", unless: [.tmp117])
            arguments.tmp117.conversionCycle = try choice("--conversion-cycle", conversionCycle, TMP117.ConversionCycle.allCases)
        }
        if let averaging {
            try refuse("--averaging", unless: [.tmp117])
            guard let value = TMP117.Averaging(rawValue: averaging) else { throw .usage("--averaging must be one of 1, 8, 32, 64, got \(averaging)") }
            arguments.tmp117.averaging = value
        }
        if let dataFormat {
            try refuse("--data-format", unless: [.max30205])
            arguments.max30205.dataFormat = try choice("--data-format", dataFormat, MAX30205.DataFormat.allCases)
        }
        if driver == .tmp117, let problem = arguments.tmp117.problem { throw .usage(problem) }
    }

    func parsedAddress() throws(SensorCommandError) -> UInt8 {
        guard let text = address else {
            guard let fallback = driver.defaultAddress else { throw .usage("\(driver.rawValue) has no I2C address") }
            return fallback
        }
        let lower = text.lowercased()
        let value = lower.hasPrefix("0x") ? UInt8(lower.dropFirst(2), radix: 16) : UInt8(lower)
        guard let value, (0x03...0x77).contains(value) else {
            throw .usage("'\(text)' is not a 7-bit I2C address (0x03...0x77)")
        }
        return value
    }

    private func read(_ arguments: ValidatedArguments) throws(SensorError) -> String {
        let simulation = simulated ? SimulatedHardware() : nil
        let clock: any SensorClock = simulation?.clock ?? SystemSensorClock()
        switch driver {
        case .cpuTemperature:
            let zones: ThermalZones
            let tree: SimulatedThermalTree?
            if simulated {
                do {
                    let created = try SimulatedThermalTree()
                    try created.setZone(0, type: "cpu-thermal", milliCelsius: "48312")
                    tree = created
                } catch {
                    throw .unavailable(sensor: "cpu-temp", reason: "cannot create simulated tree: \(error)")
                }
                zones = tree?.zones ?? ThermalZones()
            } else {
                tree = nil
                zones = ThermalZones()
            }
            let reading = try CPUTemperature(zones: zones).read()
            _ = tree
            return "cpu-temp: " + Self.format(celsius: reading.celsius)
        case .ds18b20:
            var tree: SimulatedOneWireTree?
            let oneWire: OneWireBus
            if simulated {
                do {
                    let created = try SimulatedOneWireTree()
                    try created.setTemperature(id: "28-00000a1b2c3d", celsius: 19.625)
                    tree = created
                } catch {
                    throw .unavailable(sensor: "DS18B20", reason: "cannot create simulated tree: \(error)")
                }
                oneWire = tree?.bus ?? OneWireBus()
            } else {
                oneWire = OneWireBus()
            }
            let sensor: DS18B20
            if let id { sensor = DS18B20(bus: oneWire, id: id) } else { sensor = try DS18B20.first(on: oneWire) }
            let reading = try sensor.read()
            tree = nil  // removes the simulated tree now that it has been read
            return "ds18b20 \(sensor.id): " + Self.format(celsius: reading.celsius)
        case .iio, .hwmon:
            return try readKernelSensor(simulated: simulated)
        case .gpioPulse:
            let lineSpec = arguments.line ?? ""
            let gpioLine: any GPIOLine
            if let simulation {
                let simulatedChip = try simulation.gpioChip(chip)
                do { gpioLine = try simulatedChip.line(lineSpec) } catch { throw .gpio(error) }
            } else {
                do { gpioLine = try LinuxGPIOChip(name: chip).line(lineSpec) } catch { throw .gpio(error) }
            }
            let receiver = GPIOPulseReceiver(line: gpioLine, clock: clock)
            try receiver.start()
            defer { receiver.stop() }
            if let simulation, let simulatedLine = gpioLine as? SimulatedGPIOLine {
                simulation.drivePulses(on: simulatedLine, seconds: seconds)
            }
            clock.sleep(milliseconds: seconds * 1000)
            return Self.format(heartRate: try receiver.reading(), name: "gpio-pulse")
        default:
            break
        }
        guard let address = arguments.address else {
            throw .unavailable(sensor: driver.rawValue, reason: "no I2C address given (use --address)")
        }
        let i2c: any I2CBus
        if let simulation {
            i2c = try simulation.i2cBus(bus, driver: driver)
        } else {
            do { i2c = try LinuxI2CBus(busNumber: bus) } catch { throw .bus(error) }
        }
        switch driver {
        case .tmp102:
            return "tmp102: " + Self.format(celsius: try TMP102(bus: i2c, address: address, clock: clock).read().celsius)
        case .mcp9808:
            return "mcp9808: " + Self.format(celsius: try MCP9808(bus: i2c, address: address).read().celsius)
        case .bme280:
            let reading = try BME280(bus: i2c, address: address, clock: clock).read()
            return "bme280: " + Self.format(celsius: reading.celsius)
                + String(format: ", %.2f hPa, %.1f %%RH", reading.pascals / 100, reading.relativeHumidity)
        case .sht31:
            let reading = try SHT31(bus: i2c, address: address, clock: clock).read()
            return "sht31: " + Self.format(celsius: reading.celsius) + String(format: ", %.1f %%RH", reading.relativeHumidity)
        case .sht4x:
            let reading = try SHT4x(bus: i2c, address: address, clock: clock).read()
            return "sht4x: " + Self.format(celsius: reading.celsius) + String(format: ", %.1f %%RH", reading.relativeHumidity)
        case .max17048:
            let reading = try MAX17048(bus: i2c, address: address).read()
            return String(format: "max17048: %.3f V, %.1f %%", reading.cellVolts, reading.stateOfChargePercent)
        case .tmp117:
            let sensor = TMP117(bus: i2c, address: address, settings: arguments.tmp117, clock: clock)
            try sensor.configure()
            return "tmp117: " + Self.format(celsius: try sensor.read().celsius)
        case .max30205:
            let sensor = MAX30205(bus: i2c, address: address, settings: arguments.max30205, clock: clock)
            try sensor.configure()
            return "max30205: " + Self.format(celsius: try sensor.read().celsius)
        case .mlx90614:
            let reading = try MLX90614(bus: i2c, address: address).read()
            return "mlx90614: object " + Self.format(celsius: reading.objectCelsius) + ", ambient " + Self.format(celsius: reading.ambientCelsius)
        case .aht20:
            let reading = try AHT20(bus: i2c, address: address, clock: clock).read()
            return "aht20: " + Self.format(celsius: reading.celsius) + String(format: ", %.1f %%RH", reading.relativeHumidity)
        case .shtc3:
            let sensor = SHTC3(bus: i2c, address: address, clock: clock)
            try sensor.verifyIdentity()
            let reading = try sensor.read()
            return "shtc3: " + Self.format(celsius: reading.celsius) + String(format: ", %.1f %%RH", reading.relativeHumidity)
        case .max30100:
            let sensor = MAX30100(bus: i2c, address: address, clock: clock)
            try sensor.configure()
            return try Self.collectHeartRate(PPGHeartRateMonitor(sensor: sensor, fingerThreshold: MAX30100.fingerThreshold),
                                             pollMilliseconds: 100, seconds: seconds, clock: clock, name: driver.rawValue)
        case .max30102, .max30101:
            let variant: MAX3010x.Variant = driver == .max30101 ? .max30101 : .max30102
            let sensor = MAX3010x(bus: i2c, address: address, variant: variant, clock: clock)
            try sensor.configure()
            return try Self.collectHeartRate(PPGHeartRateMonitor(sensor: sensor), pollMilliseconds: 200, seconds: seconds,
                                             clock: clock, name: driver.rawValue)
        case .ds18b20, .gpioPulse, .cpuTemperature, .iio, .hwmon:
            return ""
        }
    }

    /// Drains the FIFO every `pollMilliseconds` (the 32-sample MAX3010x FIFO holds 320 ms at 100 Hz,
    /// the MAX30100's 16 samples 160 ms) for `seconds` and reports the rate with every RR-interval seen.
    private static func collectHeartRate(_ monitor: PPGHeartRateMonitor, pollMilliseconds: Double, seconds: Double,
                                         clock: any SensorClock, name: String) throws(SensorError) -> String {
            let polls = max(1, Int(saturating: seconds * 1000 / pollMilliseconds))
            var intervals: [Double] = []
            for _ in 0..<polls {
                clock.sleep(milliseconds: pollMilliseconds)
                try monitor.poll()
                if let partial = try? monitor.reading() { intervals += partial.rrIntervalsMilliseconds }
            }
            var reading = try monitor.reading()
            reading.rrIntervalsMilliseconds = intervals + reading.rrIntervalsMilliseconds
            return format(heartRate: reading, name: name)
    }

    /// An iio / hwmon device: every channel it has, with units.
    private func readKernelSensor(simulated: Bool) throws(SensorError) -> String {
        let kind: KernelSensor.Kind = driver == .hwmon ? .hwmon : .iio
        let name = device ?? ""
        var tree: SimulatedKernelSensorTree?
        if simulated {
            do {
                let created = try SimulatedKernelSensorTree()
                try created.addDHT(index: 0, celsius: 22.4, relativeHumidity: 51)
                try created.addDevice(.iio, index: 1, name: "bme280", attributes: [
                    "in_temp_input": "21870", "in_humidityrelative_input": "44120", "in_pressure_input": "101.325",
                ])
                try created.addHwmonThermometer(index: 0, name: "cpu_thermal", celsius: 48.3)
                try created.addHwmonThermometer(index: 1, celsius: 19.625)
                tree = created
            } catch {
                throw .unavailable(sensor: driver.rawValue, reason: "cannot create simulated tree: \(error)")
            }
        }
        let reading = try KernelSensor(kind: kind, device: name, root: tree?.root ?? KernelSensor.defaultRoot).read()
        tree = nil  // removes the simulated tree now that it has been read
        var parts: [String] = []
        if let celsius = reading.celsius { parts.append(Self.format(celsius: celsius)) }
        if let humidity = reading.relativeHumidity { parts.append(String(format: "%.1f %%RH", humidity)) }
        if let pascals = reading.pascals { parts.append(String(format: "%.2f hPa", pascals / 100)) }
        return "\(driver.rawValue) \(name): " + parts.joined(separator: ", ")
    }

    static func format(celsius: Double) -> String {
        String(format: "%.2f °C", celsius)
    }

    static func format(heartRate: HeartRateReading, name: String) -> String {
        guard let bpm = heartRate.beatsPerMinute else {
            return "\(name): collecting beats (no rate yet)"
        }
        let rr = heartRate.rrIntervalsMilliseconds.map { String(format: "%.0f", $0) }.joined(separator: " ")
        return String(format: "\(name): %.0f bpm", bpm) + (rr.isEmpty ? "" : ", RR ms: \(rr)")
    }
}

/// Why `sensor read` failed; printed as a plain message. Sensor failures exit with 1, argument
/// errors with 64 (EX_USAGE, as ArgumentParser's own validation errors do).
public enum SensorCommandError: Error, Equatable, Sendable, CustomStringConvertible {
    case sensor(SensorError)
    case usage(String)

    public var exitCode: Int32 {
        switch self {
        case .sensor: return ExitCode.failure.rawValue
        case .usage: return ExitCode.validationFailure.rawValue
        }
    }

    public var description: String {
        switch self {
        case let .sensor(error): return error.description
        case let .usage(message): return message
        }
    }
}
