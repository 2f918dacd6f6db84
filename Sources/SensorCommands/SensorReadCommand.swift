import ArgumentParser
import BridgeConfiguration
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

    // Driver settings: the same names and values as a sensor's `options:` in the daemon's configuration,
    // checked by the same code (CommandLineSettings); a setting the driver does not take is a usage error.
    @Option(name: .customLong("iir-filter"),
            help: "bme280 IIR filter coefficient: off, 2, 4, 8 or 16 (default off, the datasheet's choice for forced mode).")
    public var iirFilter: String?

    @Option(help: "bme280 oversampling per channel, e.g. temperature=2,pressure=16,humidity=1 (0 skips a channel; default 1).")
    public var oversampling: String?

    @Option(name: .customLong("sample-rate"), help: "max30102/max30101 sample rate: 50, 100, 200 or 400 Hz; max30100: 50 or 100 (default 100).")
    public var sampleRate: String?

    @Option(name: .customLong("led-current-ma"), help: "max30102/max30101 LED current, 0 … 51 mA (default 7); max30100: 0 … 50 mA (default 11).")
    public var ledCurrentMilliamps: String?

    @Option(help: "gpio-pulse edge: rising, falling or both (default rising).")
    public var edge: String?

    @Option(help: "gpio-pulse line bias: pull-up, pull-down, disabled or as-is (default pull-down).")
    public var bias: String?

    @Option(name: .customLong("conversion-rate"), help: "tmp102 conversions per second: 0.25, 1, 4 or 8 (default: as the chip is, 4 after power-up).")
    public var conversionRate: String?

    @Option(name: .customLong("extended-mode"), help: "tmp102 13-bit extended mode for readings up to 150 °C: on or off.")
    public var extendedMode: String?

    @Option(help: "mcp9808 resolution step: 0.5, 0.25, 0.125 or 0.0625 °C (default: as the chip is, 0.0625 after power-up).")
    public var resolution: String?

    @Option(help: "sht31 repeatability: high, medium or low (default high).")
    public var repeatability: String?

    @Option(help: "sht31 heater: on or off; it stays so after the read (until --heater off or a power cycle). On warms the chip, so the temperature read is not the ambient one. sht4x: one heater pulse, power=20mw|110mw|200mw,pulse=100ms|1s; the values printed are the hot die's, measured at the end of the pulse (the heater is rated for 10 % duty: wait ten of the longest pulse, 11 s after a 1s pulse or 1.1 s after 100ms, before the next).")
    public var heater: String?

    @Option(help: "sht4x precision: high, medium or low (default high).")
    public var precision: String?

    @Option(help: "Temperature unit to print: celsius or fahrenheit (calibration offsets stay in °C).")
    public var unit: String?

    // Unconditional so a negative offset (`--calibration-offset -0.3`) is read as the value, not as an option.
    @Option(name: .customLong("calibration-offset"), parsing: .unconditional,
            help: "Added to the reading: a number for the driver's first quantity (°C for temperature) or e.g. temperature=-0.3,humidity=2.")
    public var calibrationOffset: String?

    @Option(help: "tmp117 / max30205: continuous or one-shot conversions.")
    public var mode: String?

    @Option(name: .customLong("conversion-cycle"),
            help: "tmp117: time between conversions: \(TMP117.ConversionCycle.allCases.map(\.rawValue).joined(separator: ", ")).")
    public var conversionCycle: String?

    @Option(help: "tmp117: conversions averaged per result: 1, 8, 32 or 64.")
    public var averaging: String?

    @Option(name: .customLong("data-format"), help: "max30205: normal or extended (+64 °C) data format.")
    public var dataFormat: String?

    @Option(name: .customLong("option"),
            help: "A driver option by its configuration name, KEY=VALUE, repeatable (e.g. --option humidity-resolution=11 for hdc1080); any driver's options, including those named above.")
    public var driverOptions: [String] = []

    @Option(help: "iio / hwmon: the kernel device's name (e.g. dht11, bme280, w1_slave_temp) or its sysfs directory.")
    public var device: String?

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
        var options = DriverOptions()
        var calibrationOffsets: [Quantity: Double] = [:]
        var unit = TemperatureUnit.celsius
    }

    /// The driver settings given, by their configuration names.
    var givenSettings: [(name: String, text: String)] {
        let all: [(String, String?)] = [
            ("oversampling", oversampling), ("iir-filter", iirFilter), ("sample-rate", sampleRate),
            ("led-current-ma", ledCurrentMilliamps), ("edge", edge), ("bias", bias), ("conversion-rate", conversionRate),
            ("extended-mode", extendedMode), ("resolution", resolution), ("repeatability", repeatability),
            ("heater", heater), ("precision", precision), ("mode", mode), ("conversion-cycle", conversionCycle),
            ("averaging", averaging), ("data-format", dataFormat),
        ]
        return all.compactMap { name, text in text.map { (name, $0) } } + driverOptions.map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
        }
    }

    func validatedArguments() throws(SensorCommandError) -> ValidatedArguments {
        // Checked here because a non-finite or huge value would trap in the integer conversions below.
        guard seconds.isFinite, seconds > 0, seconds <= Self.maximumSeconds else {
            throw .usage("--seconds must be a number of seconds with 0 < s <= \(Int(Self.maximumSeconds)), got \(seconds)")
        }
        if let malformed = driverOptions.first(where: { !$0.contains("=") || $0.hasPrefix("=") }) {
            throw .usage("--option takes KEY=VALUE with a configuration option name, e.g. --option humidity-resolution=11; got '\(malformed)'")
        }
        let names = givenSettings.map(\.name)
        if let twice = names.first(where: { name in names.filter { $0 == name }.count > 1 }) {
            throw .usage("--\(twice) is given more than once (as --\(twice) or --option \(twice)=…); give each option once")
        }
        if device != nil, driver != .iio, driver != .hwmon {
            throw .usage("--device applies to iio and hwmon, not to \(driver.rawValue)")
        }
        var arguments = try wiringArguments()
        switch CommandLineSettings.settings(driver: driver, options: givenSettings, calibrationOffset: calibrationOffset, unit: unit) {
        case let .success(settings):
            arguments.options = settings.options
            arguments.calibrationOffsets = settings.calibrationOffsets
            arguments.unit = settings.unit
            let heater = settings.options.settings(SHT4xDriver.Settings.self)
            if heater.heaterEvery != nil || heater.heaterCoolDown != nil {
                throw .usage("--heater: every and cool-down schedule the daemon's heater; sensor read runs one pulse (power=…,pulse=…)")
            }
        case let .failure(problems):
            throw usage(problems)
        }
        return arguments
    }

    /// Configuration problems in command-line words: `--heater every: …` for the path heater.every.
    /// An option given through `--option NAME=VALUE` is named that way (`--option humidity-resolution: …`).
    private func usage(_ problems: ConfigurationProblems) -> SensorCommandError {
        let throughOption = Set(driverOptions.map { String($0.prefix { $0 != "=" }) })
        return .usage(problems.problems.map { problem in
            let key = String(problem.path.prefix { $0 != "." })
            let flag = throughOption.contains(key) ? "--option " : "--"
            return "\(flag)\(problem.path.replacingOccurrences(of: ".", with: " ")): \(problem.message)"
        }.joined(separator: "\n"))
    }

    private func wiringArguments() throws(SensorCommandError) -> ValidatedArguments {
        switch driver.descriptor.connection {
        case .gpio:
            guard !chip.isEmpty else { throw .usage("--chip must name a GPIO chip, e.g. gpiochip0 (list them with gpiodetect)") }
            guard let line, !line.isEmpty else {
                throw .usage("gpio-pulse needs --line: a line offset such as 17 or a name such as GPIO17 (list them with gpioinfo)")
            }
            return ValidatedArguments(line: line)
        case .oneWire:
            // The id becomes a sysfs path component, so it must be a plain name.
            if let id, id.isEmpty || id.contains("/") || id.hasPrefix(".") {
                throw .usage("'\(id)' is not a 1-Wire device id: use the name from /sys/bus/w1/devices, e.g. 28-0316a2795dff")
            }
            return ValidatedArguments()
        case .thermalZone:
            return ValidatedArguments()
        case .kernel:
            let example = driver == .iio ? "dht11 (cat /sys/bus/iio/devices/*/name)" : "w1_slave_temp (cat /sys/class/hwmon/*/name)"
            guard let device, !device.isEmpty else {
                throw .usage("\(driver.rawValue) needs --device: the kernel device's name, e.g. \(example), or its sysfs directory")
            }
            if case let .failure(problems) = CommandLineSettings.device(device, driver: driver) {
                throw usage(problems)
            }
            return ValidatedArguments()
        case .i2c:
            return ValidatedArguments(address: try parsedAddress())
        }
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
        let options = arguments.options
        let offsets = Offsets(arguments.calibrationOffsets)
        let unit = arguments.unit
        let simulation = simulated ? SimulatedHardware() : nil
        let clock: any SensorClock = simulation?.clock ?? SystemSensorClock()
        switch driver.descriptor.connection {
        case .thermalZone:
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
            return "cpu-temp: " + ReadingText.temperature(reading.celsius + offsets.temperature, unit: unit)
        case .oneWire:
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
            return "ds18b20 \(sensor.id): " + ReadingText.temperature(reading.celsius + offsets.temperature, unit: unit)
        case .kernel:
            return try readKernelSensor(simulated: simulated, unit: unit, offsets: offsets)
        case .gpio:
            let lineSpec = arguments.line ?? ""
            let gpioLine: any GPIOLine
            if let simulation {
                let simulatedChip = try simulation.gpioChip(chip)
                do { gpioLine = try simulatedChip.line(lineSpec) } catch { throw .gpio(error) }
            } else {
                do { gpioLine = try LinuxGPIOChip(name: chip).line(lineSpec) } catch { throw .gpio(error) }
            }
            let pulse = options.settings(GPIOPulseDriver.Settings.self)
            let receiver = GPIOPulseReceiver(line: gpioLine, clock: clock, edge: pulse.edgeSelection, bias: pulse.lineBias)
            try receiver.start()
            defer { receiver.stop() }
            if let simulation, let simulatedLine = gpioLine as? SimulatedGPIOLine {
                simulation.drivePulses(on: simulatedLine, seconds: seconds)
            }
            clock.sleep(milliseconds: seconds * 1000)
            return ReadingText.heartRate(try receiver.reading(), name: "gpio-pulse")
        case .i2c:
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
        guard let descriptor = driver.i2c else { return "" }
        let chip = I2CDriverContext(bus: i2c, address: address, clock: clock, options: options, offsets: arguments.calibrationOffsets)
        return try descriptor.readOnce(SensorReadRequest(chip: chip, unit: unit, seconds: seconds))
    }

    /// An iio / hwmon device: every channel it has, with units.
    private func readKernelSensor(simulated: Bool, unit: TemperatureUnit, offsets: Offsets) throws(SensorError) -> String {
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
        if let celsius = reading.celsius { parts.append(ReadingText.temperature(celsius + offsets.temperature, unit: unit)) }
        if let humidity = reading.relativeHumidity { parts.append(String(format: "%.1f %%RH", ReadingText.clampedHumidity(humidity + offsets.humidity))) }
        if let pascals = reading.pascals { parts.append(String(format: "%.2f hPa", (pascals + offsets.pressure) / 100)) }
        return "\(driver.rawValue) \(name): " + parts.joined(separator: ", ")
    }

    /// Calibration offsets per quantity, 0 where none is given.
    struct Offsets {
        var temperature = 0.0, humidity = 0.0, pressure = 0.0, batteryLevel = 0.0

        init(_ offsets: [Quantity: Double]) {
            temperature = offsets[.temperature] ?? 0
            humidity = offsets[.humidity] ?? 0
            pressure = offsets[.pressure] ?? 0
            batteryLevel = offsets[.batteryLevel] ?? 0
        }
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
