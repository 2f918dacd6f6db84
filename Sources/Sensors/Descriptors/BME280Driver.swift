import Foundation

/// Bosch BME280 temperature, humidity and pressure.
public struct BME280Driver: I2CDriverDescriptor {
    public let name = "bme280"
    public let connection = SensorConnection.i2c(defaultAddress: BME280.defaultAddress)
    public let quantities: [Quantity] = [.temperature, .humidity, .pressure]
    public let optionKeys = ["oversampling", "iir-filter"]
    /// Its calibration NVM, and the 8 data bytes every forced measurement then produces.
    public let simulatedRegisters = [
        SimulatedRegisterRange(0x88...0xA1, "calibration block 1", exact: false),
        SimulatedRegisterRange(0xE1...0xE7, "calibration block 2", exact: false),
        SimulatedRegisterRange(0xF7...0xFE, "the data registers press_msb…hum_lsb", exact: true),
    ]
    public init() {}

    /// `oversampling` per channel (0 skips pressure or humidity) and `iir-filter` (nil: off).
    public struct Settings: DriverSettings, Defaultable {
        public var temperatureOversampling: Int?
        public var pressureOversampling: Int?
        public var humidityOversampling: Int?
        public var iirFilter: BME280.FilterCoefficient?
        public init(temperatureOversampling: Int? = nil, pressureOversampling: Int? = nil, humidityOversampling: Int? = nil,
                    iirFilter: BME280.FilterCoefficient? = nil) {
            self.temperatureOversampling = temperatureOversampling
            self.pressureOversampling = pressureOversampling
            self.humidityOversampling = humidityOversampling
            self.iirFilter = iirFilter
        }
        public init() { self.init(temperatureOversampling: nil) }

        /// A ratio as the driver takes it; `fallback` when the channel's is not set.
        public static func oversampling(_ factor: Int?, default fallback: BME280.Oversampling) -> BME280.Oversampling {
            switch factor {
            case 0: .skipped
            case 1: .x1
            case 2: .x2
            case 4: .x4
            case 8: .x8
            case 16: .x16
            default: fallback
            }
        }

        /// The chip as configured, each channel's ratio `fallback` where none is set.
        func chip(bus: any I2CBus, address: UInt8, clock: any SensorClock,
                  defaults: (temperature: BME280.Oversampling, pressure: BME280.Oversampling, humidity: BME280.Oversampling)) -> BME280 {
            BME280(bus: bus, address: address, clock: clock,
                   temperature: Self.oversampling(temperatureOversampling, default: defaults.temperature),
                   pressure: Self.oversampling(pressureOversampling, default: defaults.pressure),
                   humidity: Self.oversampling(humidityOversampling, default: defaults.humidity),
                   filter: iirFilter ?? .off)
        }
    }

    public func readOption(_ key: String, from reader: any DriverOptionReader, into options: inout DriverOptions) {
        options.update(Settings.self) { read(key, from: reader, into: &$0) }
    }

    /// A channel with oversampling 0 measures nothing, so there is nothing to publish for it.
    public func checkEntry(_ options: DriverOptions, pollInterval: Duration?, spell: (Duration) -> String) -> [SensorEntryProblem] {
        let settings = options.settings(Settings.self)
        return [(Quantity.humidity, settings.humidityOversampling), (.pressure, settings.pressureOversampling)].compactMap { quantity, ratio in
            guard ratio == 0 else { return nil }
            return .unmeasured(quantity, reason: "oversampling.\(quantity.rawValue) is 0 (the channel is skipped and measures nothing)")
        }
    }

    private func read(_ key: String, from reader: any DriverOptionReader, into options: inout Settings) {
        switch key {
        case "oversampling":
            guard let ratios = reader.map(key, known: ["temperature", "pressure", "humidity"]) else { return }
            func ratio(_ name: String) -> Int? {
                guard ratios.has(name) else { return nil }
                // Pressure and humidity are compensated with t_fine from the temperature channel,
                // so temperature cannot be skipped (datasheet 4.2.3).
                return ratios.oneOf(name, name == "temperature" ? [1, 2, 4, 8, 16] : [0, 1, 2, 4, 8, 16])
            }
            options.temperatureOversampling = ratio("temperature")
            options.pressureOversampling = ratio("pressure")
            options.humidityOversampling = ratio("humidity")
        case "iir-filter":
            let names = BME280.FilterCoefficient.allCases.map(\.name).joined(separator: ", ")
            guard let text = reader.text(key, expected: "one of \(names)") else { return }
            guard let filter = BME280.FilterCoefficient(name: text) else {
                reader.problem(at: key, "\(reader.quoted(text)) is not an IIR filter coefficient; use one of \(names)")
                return
            }
            options.iirFilter = filter
        default: break
        }
    }

    public func makeSource(_ context: I2CDriverContext) throws(SensorError) -> any SensorSource {
        let chip = context.options.settings(Settings.self).chip(bus: context.bus, address: context.address, clock: context.clock,
                                                                 defaults: (.x2, .x16, .x1))
        return DriverSource(offsets: context.offsets, read: { () throws(SensorError) in
            let reading = try chip.read()
            return Measurement(temperature: reading.celsius, humidity: reading.relativeHumidity, pressure: reading.pascals)
        }, close: context.close)
    }

    public func makeSimulatedChip(_ simulation: SimulationSettings, address: UInt8, clock: any SensorClock) -> any SimulatedI2CDevice {
        let chip = SimulatedBME280(clock: clock)
        guard !simulation.registers.isEmpty else {
            chip.setEnvironment(celsius: simulation.celsius ?? SimulationDefaults.celsius,
                                pascals: simulation.pascals ?? SimulationDefaults.pascals,
                                relativeHumidity: simulation.relativeHumidity ?? SimulationDefaults.relativeHumidity)
            return chip
        }
        for block in simulation.registers {
            if block.start == 0xF7 { chip.setDataRegisters(block.bytes) } else { chip.setRegisters(block.bytes, at: block.start) }
        }
        return chip
    }

    public func makeDemoChip(address: UInt8, clock: any SensorClock) -> any SimulatedI2CDevice {
        let chip = SimulatedBME280(clock: clock)
        chip.setEnvironment(celsius: 21.5, pascals: 101_325, relativeHumidity: 40)
        return chip
    }

    public func readOnce(_ request: SensorReadRequest) throws(SensorError) -> String {
        let context = request.chip
        // One read from the command line: x1 on every channel by default (the datasheet's
        // weather-monitoring setting), not the daemon's continuous-use x2/x16/x1.
        let reading = try context.options.settings(Settings.self).chip(bus: context.bus, address: context.address, clock: context.clock,
                                                                        defaults: (.x1, .x1, .x1)).read()
        // A channel with oversampling 0 is skipped by the chip and left out here.
        return "bme280: " + request.temperature(reading.celsius)
            + (reading.pascals.map { String(format: ", %.2f hPa", ($0 + request.offset(.pressure)) / 100) } ?? "")
            + (reading.relativeHumidity.map(request.humidity) ?? "")
    }
}

extension SensorDriver {
    public static let bme280 = SensorDriver(BME280Driver())
}
