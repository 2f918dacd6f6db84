import Synchronization

/// Texas Instruments HDC1080 humidity and temperature sensor (0x40), from its datasheet (SNAS672):
/// 16-bit registers sent most significant byte first, behind a pointer register. With MODE set, a
/// write of pointer 0x00 starts a temperature conversion followed by a humidity one; the chip NACKs
/// reads until both are done, then sends four bytes, temperature first.
public final class HDC1080: Sendable {
    /// Datasheet 8.6: the register map.
    enum Register: UInt8 {
        case temperature = 0x00
        case humidity = 0x01
        case configuration = 0x02
        case manufacturerID = 0xFE
        case deviceID = 0xFF
    }

    /// Datasheet 8.6.3, Table 8: the configuration register's fields.
    enum ConfigurationBit {
        static let reset: UInt16 = 0x8000
        static let heater: UInt16 = 0x2000
        /// Temperature and humidity acquired in sequence, temperature first.
        static let sequence: UInt16 = 0x1000
        static let temperature11Bit: UInt16 = 0x0400
        static let humidity11Bit: UInt16 = 0x0100
        static let humidity8Bit: UInt16 = 0x0200
    }

    /// Datasheet 8.6.4 and 8.6.5: what every HDC1080 answers.
    static let manufacturerID: UInt16 = 0x5449
    static let deviceID: UInt16 = 0x1050

    public enum TemperatureResolution: Int, Sendable, CaseIterable {
        case bits14 = 14, bits11 = 11
        /// Datasheet 7.5: conversion time, maximum not given; the typical value plus a margin.
        var conversionMilliseconds: Double { self == .bits14 ? 6.35 : 3.65 }
    }

    public enum HumidityResolution: Int, Sendable, CaseIterable {
        case bits14 = 14, bits11 = 11, bits8 = 8
        var conversionMilliseconds: Double {
            switch self {
            case .bits14: 6.5
            case .bits11: 3.85
            case .bits8: 2.5
            }
        }
    }

    public struct Settings: Sendable, Equatable {
        public var temperatureResolution: TemperatureResolution
        public var humidityResolution: HumidityResolution

        public init(temperatureResolution: TemperatureResolution = .bits14, humidityResolution: HumidityResolution = .bits14) {
            self.temperatureResolution = temperatureResolution
            self.humidityResolution = humidityResolution
        }

        var configuration: UInt16 {
            var word = ConfigurationBit.sequence
            if temperatureResolution == .bits11 { word |= ConfigurationBit.temperature11Bit }
            switch humidityResolution {
            case .bits14: break
            case .bits11: word |= ConfigurationBit.humidity11Bit
            case .bits8: word |= ConfigurationBit.humidity8Bit
            }
            return word
        }

        /// Both conversions with a 20 % margin, as the typical times are all the datasheet gives.
        var conversionMilliseconds: Double {
            (temperatureResolution.conversionMilliseconds + humidityResolution.conversionMilliseconds) * 1.2
        }
    }

    /// The chip's only address.
    public static let defaultAddress: UInt8 = 0x40

    public let bus: any I2CBus
    public let address: UInt8
    public let settings: Settings
    public let clock: any SensorClock

    public init(bus: any I2CBus, address: UInt8 = defaultAddress, settings: Settings = Settings(),
                clock: any SensorClock = SystemSensorClock()) {
        self.bus = bus
        self.address = address
        self.settings = settings
        self.clock = clock
    }

    /// Checks the IDs, so another chip at 0x40 (an INA219, an HTU21D) is not read as an HDC1080,
    /// then sets sequence mode and the resolutions.
    public func configure() throws(SensorError) {
        let manufacturer = try readRegister(.manufacturerID)
        let device = try readRegister(.deviceID)
        guard manufacturer == Self.manufacturerID, device == Self.deviceID else {
            throw .wrongChip(sensor: "HDC1080", expected: "manufacturer ID 0x5449, device ID 0x1050",
                             found: "manufacturer ID 0x" + String(manufacturer, radix: 16) + ", device ID 0x" + String(device, radix: 16))
        }
        do {
            try bus.writeBigEndianWord(address: address, command: Register.configuration.rawValue, value: settings.configuration)
        } catch { throw .bus(error) }
    }

    public func read() throws(SensorError) -> TemperatureHumidityReading {
        try write([Register.temperature.rawValue])
        clock.sleep(milliseconds: settings.conversionMilliseconds)
        let bytes: [UInt8]
        do { bytes = try bus.read(address: address, count: 4) } catch { throw .bus(error) }
        guard bytes.count == 4 else { throw .invalidData(sensor: "HDC1080", reason: "read \(bytes.count) of 4 measurement bytes") }
        let temperature = UInt16(bytes[0]) << 8 | UInt16(bytes[1])
        let humidity = UInt16(bytes[2]) << 8 | UInt16(bytes[3])
        return TemperatureHumidityReading(celsius: Self.celsius(temperature), relativeHumidity: Self.humidity(humidity))
    }

    /// Datasheet 8.6.1, equation 1.
    public static func celsius(_ raw: UInt16) -> Double { Double(raw) / 65536 * 165 - 40 }
    /// Datasheet 8.6.2, equation 2.
    public static func humidity(_ raw: UInt16) -> Double { Double(raw) / 65536 * 100 }

    private func readRegister(_ register: Register) throws(SensorError) -> UInt16 {
        do { return try bus.readBigEndianWord(address: address, command: register.rawValue) } catch { throw .bus(error) }
    }

    private func write(_ bytes: [UInt8]) throws(SensorError) {
        do { try bus.write(address: address, bytes: bytes) } catch { throw .bus(error) }
    }
}

/// HDC1080 model: the pointer register, the configuration register, the IDs, and a sequence
/// conversion that NACKs reads until it is done (typical times of the datasheet).
public final class SimulatedHDC1080: SimulatedI2CDevice {
    private struct State {
        var celsius: Double
        var humidity: Double
        var pointer: UInt8 = 0
        var configuration: UInt16 = 0x1000
        var readyAt: UInt64?
        var output: [UInt8] = []
        var rawWords: (temperature: UInt16, humidity: UInt16)?
        var deviceID: UInt16 = HDC1080.deviceID
    }

    private let state: Mutex<State>
    private let clock: any SensorClock

    public init(celsius: Double = 22, relativeHumidity: Double = 45, clock: any SensorClock) {
        state = Mutex(State(celsius: celsius, humidity: relativeHumidity))
        self.clock = clock
    }

    /// The raw temperature and humidity words the next conversion returns.
    public func setRawWords(temperature: UInt16, humidity: UInt16) { state.withLock { $0.rawWords = (temperature, humidity) } }

    /// Models another chip at 0x40 answering with its own device ID.
    public func setDeviceID(_ id: UInt16) { state.withLock { $0.deviceID = id } }

    public var configuration: UInt16 { state.withLock { $0.configuration } }

    public func receive(_ bytes: [UInt8]) throws(SimulatedI2CNack) {
        let now = clock.nowNanoseconds()
        try state.withLock { state throws(SimulatedI2CNack) in
            guard let pointer = bytes.first else { return }
            state.pointer = pointer
            state.output = []
            switch pointer {
            case HDC1080.Register.configuration.rawValue where bytes.count == 3:
                state.configuration = (UInt16(bytes[1]) << 8 | UInt16(bytes[2])) & 0xB700
            case HDC1080.Register.temperature.rawValue where bytes.count == 1:
                let conversion = Self.conversionNanoseconds(state.configuration)
                state.readyAt = now + conversion
                let t = state.rawWords?.temperature ?? UInt16(saturating: ((state.celsius + 40) / 165 * 65536).rounded())
                let h = state.rawWords?.humidity ?? UInt16(saturating: (state.humidity / 100 * 65536).rounded())
                state.output = [UInt8(t >> 8), UInt8(truncatingIfNeeded: t), UInt8(h >> 8), UInt8(truncatingIfNeeded: h)]
            case HDC1080.Register.manufacturerID.rawValue where bytes.count == 1:
                state.output = [0x54, 0x49]
            case HDC1080.Register.deviceID.rawValue where bytes.count == 1:
                state.output = [UInt8(state.deviceID >> 8), UInt8(truncatingIfNeeded: state.deviceID)]
            case HDC1080.Register.configuration.rawValue where bytes.count == 1:
                state.output = [UInt8(state.configuration >> 8), UInt8(truncatingIfNeeded: state.configuration)]
            default:
                throw .data
            }
        }
    }

    public func transmit(count: Int) throws(SimulatedI2CNack) -> [UInt8] {
        let now = clock.nowNanoseconds()
        return try state.withLock { state throws(SimulatedI2CNack) -> [UInt8] in
            if let ready = state.readyAt {
                guard now >= ready else { throw .address }
                state.readyAt = nil
            }
            guard !state.output.isEmpty else { throw .address }
            let out = Array(state.output.prefix(count))
            state.output = []
            return out + [UInt8](repeating: 0xFF, count: max(0, count - out.count))
        }
    }

    public func stop() {}

    /// Typical times of datasheet 7.5 for the configured resolutions, both conversions.
    static func conversionNanoseconds(_ configuration: UInt16) -> UInt64 {
        let temperature: UInt64 = configuration & HDC1080.ConfigurationBit.temperature11Bit != 0 ? 3_650_000 : 6_350_000
        let humidity: UInt64 = switch configuration & 0x0300 {
        case HDC1080.ConfigurationBit.humidity11Bit: 3_850_000
        case HDC1080.ConfigurationBit.humidity8Bit: 2_500_000
        default: 6_500_000
        }
        return temperature + humidity
    }
}

/// The HDC1080 as the daemon, `sensor read`, the loader and the simulated board know it.
public struct HDC1080Driver: I2CDriverDescriptor {
    public let name = "hdc1080"
    public let connection = SensorConnection.i2c(defaultAddress: HDC1080.defaultAddress)
    public let quantities: [Quantity] = [.temperature, .humidity]
    public let optionKeys = ["temperature-resolution", "humidity-resolution"]
    /// Both result words, as datasheet examples give them.
    public let simulatedRegisters = [SimulatedRegisterRange(0x00...0x03, "the temperature and humidity registers", exact: true)]
    public init() {}

    /// `temperature-resolution: 14 | 11` and `humidity-resolution: 14 | 11 | 8` (bits; fewer bits convert faster).
    public func readOption(_ key: String, from reader: any DriverOptionReader, into options: inout DriverOptions) {
        var settings = options[HDC1080.Settings.self] ?? HDC1080.Settings()
        switch key {
        case "temperature-resolution":
            guard let bits = reader.oneOf(key, HDC1080.TemperatureResolution.allCases.map(\.rawValue).sorted(), unit: " bits") else { return }
            settings.temperatureResolution = HDC1080.TemperatureResolution(rawValue: bits) ?? .bits14
        case "humidity-resolution":
            guard let bits = reader.oneOf(key, HDC1080.HumidityResolution.allCases.map(\.rawValue).sorted(), unit: " bits") else { return }
            settings.humidityResolution = HDC1080.HumidityResolution(rawValue: bits) ?? .bits14
        default:
            return
        }
        options[HDC1080.Settings.self] = settings
    }

    private func chip(_ context: I2CDriverContext) -> HDC1080 {
        HDC1080(bus: context.bus, address: context.address, settings: context.options[HDC1080.Settings.self] ?? HDC1080.Settings(),
                clock: context.clock)
    }

    public func makeSource(_ context: I2CDriverContext) throws(SensorError) -> any SensorSource {
        let chip = chip(context)
        return DriverSource(offsets: context.offsets, setup: { () throws(SensorError) in try chip.configure() },
                            read: { () throws(SensorError) in
            let reading = try chip.read()
            return Measurement(temperature: reading.celsius, humidity: reading.relativeHumidity)
        }, close: context.close)
    }

    public func makeSimulatedChip(_ simulation: SimulationSettings, address: UInt8, clock: any SensorClock) -> any SimulatedI2CDevice {
        let chip = SimulatedHDC1080(celsius: simulation.celsius ?? 21.5, relativeHumidity: simulation.relativeHumidity ?? 45, clock: clock)
        if let words = simulation.registers.first(where: { $0.start == 0x00 && $0.bytes.count == 4 })?.bytes {
            chip.setRawWords(temperature: UInt16(words[0]) << 8 | UInt16(words[1]), humidity: UInt16(words[2]) << 8 | UInt16(words[3]))
        }
        return chip
    }

    public func makeDemoChip(address: UInt8, clock: any SensorClock) -> any SimulatedI2CDevice {
        SimulatedHDC1080(celsius: 22.5, relativeHumidity: 48, clock: clock)
    }

    public func readOnce(_ request: SensorReadRequest) throws(SensorError) -> String {
        let sensor = chip(request.chip)
        try sensor.configure()
        let reading = try sensor.read()
        return "hdc1080: " + request.temperature(reading.celsius) + request.humidity(reading.relativeHumidity)
    }
}

extension HDC1080.Settings: DriverSettings {}

extension SensorDriver {
    public static let hdc1080 = SensorDriver(HDC1080Driver())
}
