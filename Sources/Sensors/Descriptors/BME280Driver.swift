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

    public func readOption(_ key: String, from reader: any DriverOptionReader, into options: inout DriverOptions) {
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
        let options = context.options
        let chip = BME280(bus: context.bus, address: context.address, clock: context.clock,
                          temperature: DriverOptions.bme280Oversampling(options.temperatureOversampling, default: .x2),
                          pressure: DriverOptions.bme280Oversampling(options.pressureOversampling, default: .x16),
                          humidity: DriverOptions.bme280Oversampling(options.humidityOversampling, default: .x1),
                          filter: options.iirFilter ?? .off)
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
        let context = request.chip, options = context.options
        // One read from the command line: x1 on every channel by default (the datasheet's
        // weather-monitoring setting), not the daemon's continuous-use x2/x16/x1.
        let reading = try BME280(bus: context.bus, address: context.address, clock: context.clock,
                                 temperature: DriverOptions.bme280Oversampling(options.temperatureOversampling, default: .x1),
                                 pressure: DriverOptions.bme280Oversampling(options.pressureOversampling, default: .x1),
                                 humidity: DriverOptions.bme280Oversampling(options.humidityOversampling, default: .x1),
                                 filter: options.iirFilter ?? .off).read()
        // A channel with oversampling 0 is skipped by the chip and left out here.
        return "bme280: " + request.temperature(reading.celsius)
            + (reading.pascals.map { String(format: ", %.2f hPa", ($0 + request.offset(.pressure)) / 100) } ?? "")
            + (reading.relativeHumidity.map(request.humidity) ?? "")
    }
}

extension SensorDriver {
    public static let bme280 = SensorDriver(BME280Driver())
}
