import BLECore
import Sensors

/// The daemon's configuration after parsing and validation: every value is in range, every
/// reference resolved (board defaults applied, sensor names unique, characteristics known).
/// Produced by `ConfigurationLoader`; consumed by the sensor bridge and the daemon.
public struct BridgeConfiguration: Sendable, Equatable {
    /// The GAP Device Name holds at most 248 bytes of UTF-8.
    public static let deviceNameBytes = 1...248

    public var board: BoardProfile
    /// `auto`, `virtual`, `tcp:HOST:PORT`, `hci:N` or `uart:PATH?...`; the board's when not set.
    public var transport: String
    public var deviceName: String
    /// GAP Appearance (e.g. 0x0340 generic heart rate sensor, 0x0300 generic thermometer).
    public var appearance: UInt16
    public var address: AddressSetting
    public var advertising: AdvertisingSettings
    public var connection: ConnectionSettings = .standard
    public var sensors: [SensorConfiguration]
    public var deviceInformation: DeviceInformationSettings
    public var paths: PathSettings
    public var security: SecuritySettings
    /// Set when the file says `board: auto`: the device-tree model and the board it picked.
    public var boardChoice: BoardChoice? = nil

    public init(board: BoardProfile, transport: String, deviceName: String, appearance: UInt16,
                address: AddressSetting, advertising: AdvertisingSettings, sensors: [SensorConfiguration],
                deviceInformation: DeviceInformationSettings, paths: PathSettings, security: SecuritySettings = SecuritySettings()) {
        self.board = board
        self.transport = transport
        self.deviceName = deviceName
        self.appearance = appearance
        self.address = address
        self.advertising = advertising
        self.sensors = sensors
        self.deviceInformation = deviceInformation
        self.paths = paths
        self.security = security
    }
}

public enum AddressSetting: Sendable, Equatable {
    /// A random static address generated once and kept in the state directory.
    case persistentRandom
    case publicAddress
    case fixedRandom(BluetoothAddress)

    /// Why a text is not an address setting, in words for the user.
    public enum ParseError: Error, Equatable, Sendable, CustomStringConvertible {
        case notAnAddress(String)
        case notRandomStatic(BluetoothAddress)

        public var description: String {
            switch self {
            case let .notAnAddress(text):
                return "'\(abbreviated(text))' is not 'random', 'public' or an address like C0:11:22:33:44:55"
            case let .notRandomStatic(address):
                return "\(address) is not a random static address: its two most significant bits must be 1 (C0…FF in the first byte)"
            }
        }
    }

    /// `random`, `public` or a random static address: `address:` in the file and `blesensord --address`.
    public static func parse(_ text: String) -> Result<AddressSetting, ParseError> {
        switch text.lowercased() {
        case "random": return .success(.persistentRandom)
        case "public": return .success(.publicAddress)
        default:
            guard let address = BluetoothAddress(text) else { return .failure(.notAnAddress(text)) }
            guard address.isValidRandomStatic else { return .failure(.notRandomStatic(address)) }
            return .success(.fixedRandom(address))
        }
    }
}

public struct AdvertisingSettings: Sendable, Equatable {
    /// What the Core spec allows for legacy advertising, and what the controllers take.
    public static let intervalRange = Duration.milliseconds(20) ... Duration.milliseconds(10_240)
    public static let maxCentralsRange = 1...8

    /// 20 ms … 10.24 s.
    public var interval: Duration
    /// Service UUIDs placed in the advertising data; defaults to the services the sensors publish.
    public var services: [BluetoothUUID]
    /// Simultaneous centrals, 1 … 8.
    public var maxCentrals: Int
    /// The interval of the first `fastPeriod` after advertising starts and after each disconnection
    /// (Apple's discovery guidance: 20 ms for 30 s, then 152.5 ms or another of its intervals).
    public var fastInterval: Duration = .milliseconds(20)
    /// Zero: no fast phase.
    public var fastPeriod: Duration = .seconds(30)
    /// Include the controller's TX Power Level (Apple's discovery guidance), room permitting.
    public var txPowerLevel = true

    public init(interval: Duration, services: [BluetoothUUID], maxCentrals: Int) {
        self.interval = interval
        self.services = services
        self.maxCentrals = maxCentrals
    }
}

public struct DeviceInformationSettings: Sendable, Equatable {
    public var manufacturer: String
    /// Model number string; the board's model when the file does not set one.
    public var model: String
    public var serialNumber: String?
    /// PnP ID (0x2A50): vendor ID source (1 = Bluetooth SIG, 2 = USB-IF), vendor, product, version.
    public var pnpVendorSource: UInt8
    public var pnpVendorID: UInt16
    public var pnpProductID: UInt16
    public var pnpProductVersion: UInt16

    public init(manufacturer: String, model: String, serialNumber: String? = nil, pnpVendorSource: UInt8 = 2,
                pnpVendorID: UInt16 = 0x1D6B, pnpProductID: UInt16 = 0x0246, pnpProductVersion: UInt16 = 0x0100) {
        self.manufacturer = manufacturer
        self.model = model
        self.serialNumber = serialNumber
        self.pnpVendorSource = pnpVendorSource
        self.pnpVendorID = pnpVendorID
        self.pnpProductID = pnpProductID
        self.pnpProductVersion = pnpProductVersion
    }
}

public struct PathSettings: Sendable, Equatable {
    public var stateDirectory: String
    public var controlSocket: String

    public init(stateDirectory: String, controlSocket: String) {
        self.stateDirectory = stateDirectory
        self.controlSocket = controlSocket
    }

    /// The bond store in a state directory: the daemon's and the CLI's central commands share it.
    public static func bondsDatabase(in stateDirectory: String) -> String { stateDirectory + "/bonds.sqlite" }

    /// Where state and the control socket go when the file does not say: systemd's StateDirectory=
    /// and RuntimeDirectory= (STATE_DIRECTORY / RUNTIME_DIRECTORY, the first of a colon-separated
    /// list), else the system paths for root, else the user's XDG directories (a developer running
    /// the demo cannot write /var/lib or /run).
    public static func defaults(environment: [String: String], userID: UInt32) -> PathSettings {
        func directory(_ name: String) -> String? {
            guard let first = environment[name]?.split(separator: ":").first, first.hasPrefix("/") else { return nil }
            return String(first)
        }
        let home = directory("HOME") ?? "/tmp"
        let state = directory("STATE_DIRECTORY")
            ?? (userID == 0 ? "/var/lib/blesensor" : (directory("XDG_STATE_HOME") ?? home + "/.local/state") + "/blesensor")
        let runtime = directory("RUNTIME_DIRECTORY")
            ?? (userID == 0 ? "/run/blesensor" : directory("XDG_RUNTIME_DIR").map { $0 + "/blesensor" } ?? "/tmp/blesensor-\(userID)")
        return PathSettings(stateDirectory: state, controlSocket: runtime + "/control.sock")
    }
}

/// A board profile from `boards/NAME.yaml`: where the sensors and the controller are.
public struct BoardProfile: Sendable, Equatable {
    /// File stem: `raspberry-pi-4b`, `simulated`, ...
    public var name: String
    /// Human-readable model, also the Device Information model number by default.
    public var model: String
    /// `N` of `/dev/i2c-N` for the header's I2C pins.
    public var i2cBus: Int
    /// GPIO chips that may carry the header lines, searched in order for a line by name
    /// (`GPIO17`); empty means every chip in /dev. Never a guessed single chip number.
    public var gpioChips: [String]
    /// The controller: `hci:0`, `uart:/dev/ttyAMA0?baud=...`, `virtual`.
    public var transport: String
    /// Every sensor is a register-level simulated chip (no hardware is touched).
    public var simulated: Bool
    /// Device-tree models (`/proc/device-tree/model`) this profile serves under `board: auto`, each
    /// matching that text and the text followed by a space: `Raspberry Pi 400` matches
    /// `Raspberry Pi 400 Rev 1.0`. Empty: never picked automatically.
    public var deviceTreeModels: [String]

    public init(name: String, model: String, i2cBus: Int, gpioChips: [String], transport: String, simulated: Bool,
                deviceTreeModels: [String] = []) {
        self.name = name
        self.model = model
        self.i2cBus = i2cBus
        self.gpioChips = gpioChips
        self.transport = transport
        self.simulated = simulated
        self.deviceTreeModels = deviceTreeModels
    }
}

/// The SIG characteristics a sensor can feed. The service follows from the characteristic.
public enum PublishedCharacteristic: String, Sendable, Equatable, Hashable, CaseIterable {
    /// Heart Rate 0x180D / 2A37, notified.
    case heartRateMeasurement = "heart-rate-measurement"
    /// Health Thermometer 0x1809 / 2A1C, indicated.
    case temperatureMeasurement = "temperature-measurement"
    /// Health Thermometer 0x1809 / 2A1E, notified.
    case intermediateTemperature = "intermediate-temperature"
    /// Environmental Sensing 0x181A / 2A6E, notified.
    case environmentalTemperature = "es-temperature"
    /// Environmental Sensing 0x181A / 2A6F, notified.
    case humidity
    /// Environmental Sensing 0x181A / 2A6D, notified.
    case pressure
    /// Battery 0x180F / 2A19, notified.
    case batteryLevel = "battery-level"
    /// Pulse Oximeter 0x1822 / 2A5F PLX Continuous Measurement, notified (with 2A60 PLX Features).
    case plxContinuousMeasurement = "plx-continuous-measurement"

    public var quantity: Quantity {
        switch self {
        case .heartRateMeasurement: return .heartRate
        case .temperatureMeasurement, .intermediateTemperature, .environmentalTemperature: return .temperature
        case .humidity: return .humidity
        case .pressure: return .pressure
        case .batteryLevel: return .batteryLevel
        case .plxContinuousMeasurement: return .oxygenSaturation
        }
    }

    public var serviceUUID: BluetoothUUID {
        switch self {
        case .heartRateMeasurement: return BluetoothUUID(0x180D)
        case .temperatureMeasurement, .intermediateTemperature: return BluetoothUUID(0x1809)
        case .environmentalTemperature, .humidity, .pressure: return BluetoothUUID(0x181A)
        case .batteryLevel: return BluetoothUUID(0x180F)
        case .plxContinuousMeasurement: return BluetoothUUID(0x1822)
        }
    }

    public var characteristicUUID: BluetoothUUID {
        switch self {
        case .heartRateMeasurement: return BluetoothUUID(0x2A37)
        case .temperatureMeasurement: return BluetoothUUID(0x2A1C)
        case .intermediateTemperature: return BluetoothUUID(0x2A1E)
        case .environmentalTemperature: return BluetoothUUID(0x2A6E)
        case .humidity: return BluetoothUUID(0x2A6F)
        case .pressure: return BluetoothUUID(0x2A6D)
        case .batteryLevel: return BluetoothUUID(0x2A19)
        case .plxContinuousMeasurement: return BluetoothUUID(0x2A5F)
        }
    }

    /// How the SIG service pushes it: 2A1C is indicated, the others notified.
    public var delivery: Delivery { self == .temperatureMeasurement ? .indicate : .notify }
}

public enum Delivery: String, Sendable, Equatable {
    case notify, indicate
}

/// One sensor entry of the file, resolved against the board.
public struct SensorConfiguration: Sendable, Equatable {
    /// Unique among the sensors; used in logs, status and the control socket.
    public var name: String
    public var driver: SensorDriver
    /// I2C bus number (the board's when not set); nil for non-I2C drivers.
    public var i2cBus: Int?
    /// 7-bit I2C address (the driver's default when not set); nil for non-I2C drivers.
    public var i2cAddress: UInt8?
    /// GPIO line name (`GPIO17`) or offset for gpio-pulse, resolved on the board's chips.
    public var gpioLine: String?
    /// 1-Wire device id (`28-0316a2795dff`) for ds18b20; nil = the first DS18B20 found.
    public var oneWireID: String?
    /// iio / hwmon: the kernel device's name (`dht11`) or the absolute path of its sysfs directory.
    public var device: String?
    /// Time between polls: 100 ms … 1 h (heart-rate drivers: 50 ms … 1 s, the FIFO holds 320 ms at 100 Hz;
    /// max30100: 50 … 150 ms, its FIFO holds 160 ms).
    public var pollInterval: Duration
    /// Added to each reading, per quantity, in the quantity's unit (°C, %RH, Pa).
    public var calibrationOffsets: [Quantity: Double]
    public var options: DriverOptions
    /// Where the readings go; may be empty (the sensor then only shows in status).
    public var publish: [PublishedCharacteristic]
    /// For the simulated board: what the simulated chip produces.
    public var simulation: SimulationSettings
    /// How the temperature is shown (status, `blesensor sensors`) and sent in the Health Thermometer
    /// measurement; Environmental Sensing and calibration offsets stay in °C.
    public var unit: TemperatureUnit

    public init(name: String, driver: SensorDriver, i2cBus: Int? = nil, i2cAddress: UInt8? = nil, gpioLine: String? = nil,
                oneWireID: String? = nil, pollInterval: Duration, calibrationOffsets: [Quantity: Double] = [:],
                options: DriverOptions = DriverOptions(), publish: [PublishedCharacteristic],
                simulation: SimulationSettings = SimulationSettings(), unit: TemperatureUnit = .celsius, device: String? = nil) {
        self.name = name
        self.device = device
        self.driver = driver
        self.i2cBus = i2cBus
        self.i2cAddress = i2cAddress
        self.gpioLine = gpioLine
        self.oneWireID = oneWireID
        self.pollInterval = pollInterval
        self.calibrationOffsets = calibrationOffsets
        self.options = options
        self.publish = publish
        self.simulation = simulation
        self.unit = unit
    }
}

/// Driver settings; each applies to the drivers named in its comment and is rejected for others.
public struct DriverOptions: Sendable, Equatable {
    /// bme280: oversampling of temperature, pressure and humidity: 0 (skipped), 1, 2, 4, 8 or 16.
    public var temperatureOversampling: Int?
    public var pressureOversampling: Int?
    public var humidityOversampling: Int?
    /// bme280: IIR filter coefficient (`iir-filter`: off, 2, 4, 8 or 16); nil means the driver's default, off.
    public var iirFilter: BME280.FilterCoefficient?
    /// max30102 / max30101: sample rate in Hz (50, 100, 200 or 400); max30100: 50 or 100.
    public var sampleRate: Int?
    /// max30102 / max30101: LED current in mA (0 … 51); max30100: 0 … 50 (its nearest step).
    public var ledCurrentMilliamps: Double?
    /// gpio-pulse: `rising`, `falling` or `both`.
    public var edge: String?
    /// gpio-pulse: `pull-up`, `pull-down`, `disabled` or `as-is`.
    public var bias: String?
    /// tmp102: conversions per second in continuous mode (`conversion-rate`: 0.25, 1, 4 or 8 Hz); nil keeps the chip's 4 Hz.
    public var conversionRate: TMP102.ConversionRate?
    /// tmp102: 13-bit extended mode (`extended-mode: on`) for readings above 128 °C, up to 150 °C.
    public var extendedMode: Bool?
    /// mcp9808: resolution step (`resolution`: 0.5, 0.25, 0.125 or 0.0625 °C); nil keeps the chip's 0.0625 °C.
    public var resolution: MCP9808.Resolution?
    /// sht31: single-shot repeatability (`repeatability`: high, medium or low); nil means high.
    public var repeatability: SHT31.Repeatability?
    /// sht31: the heater (`heater`: on or off); on raises the temperature reading, so it is for diagnosis only.
    public var heater: Bool?
    /// sht4x: measurement precision (`precision`: high, medium or low); nil means high.
    public var precision: SHT4x.Precision?
    /// sht4x: the heater pulse (`heater: {power, pulse, every, cool-down}`), how often the daemon runs
    /// it and how long readings are withheld after it (nil: `SHT4xHeaterCycle.Schedule.defaultCoolDown`).
    public var heaterPulse: SHT4x.HeaterPulse?
    public var heaterEvery: Duration?
    public var heaterCoolDown: Duration?
    /// tmp117 / max30205: continuous conversions or one per read.
    public var mode: ConversionMode?
    /// tmp117: CONV, the time between conversions.
    public var conversionCycle: TMP117.ConversionCycle?
    /// tmp117: AVG, conversions averaged per result.
    public var averaging: TMP117.Averaging?
    /// max30205: DATA FORMAT, normal or extended (+64 °C).
    public var dataFormat: MAX30205.DataFormat?

    public init(temperatureOversampling: Int? = nil, pressureOversampling: Int? = nil, humidityOversampling: Int? = nil,
                sampleRate: Int? = nil, ledCurrentMilliamps: Double? = nil, edge: String? = nil, bias: String? = nil,
                iirFilter: BME280.FilterCoefficient? = nil, conversionRate: TMP102.ConversionRate? = nil,
                extendedMode: Bool? = nil, resolution: MCP9808.Resolution? = nil, repeatability: SHT31.Repeatability? = nil,
                heater: Bool? = nil, precision: SHT4x.Precision? = nil,
                heaterPulse: SHT4x.HeaterPulse? = nil, heaterEvery: Duration? = nil, heaterCoolDown: Duration? = nil,
                mode: ConversionMode? = nil, conversionCycle: TMP117.ConversionCycle? = nil, averaging: TMP117.Averaging? = nil,
                dataFormat: MAX30205.DataFormat? = nil) {
        self.mode = mode
        self.conversionCycle = conversionCycle
        self.averaging = averaging
        self.dataFormat = dataFormat
        self.temperatureOversampling = temperatureOversampling
        self.iirFilter = iirFilter
        self.pressureOversampling = pressureOversampling
        self.humidityOversampling = humidityOversampling
        self.sampleRate = sampleRate
        self.ledCurrentMilliamps = ledCurrentMilliamps
        self.edge = edge
        self.bias = bias
        self.conversionRate = conversionRate
        self.extendedMode = extendedMode
        self.resolution = resolution
        self.repeatability = repeatability
        self.heater = heater
        self.precision = precision
        self.heaterPulse = heaterPulse
        self.heaterEvery = heaterEvery
        self.heaterCoolDown = heaterCoolDown
    }
}

extension DriverOptions {
    /// sht4x: the heater schedule, when a pulse and its period are set.
    public var sht4xHeaterSchedule: SHT4xHeaterCycle.Schedule? {
        guard let heaterPulse, let heaterEvery else { return nil }
        return SHT4xHeaterCycle.Schedule(pulse: heaterPulse, every: heaterEvery,
                                         coolDown: heaterCoolDown ?? SHT4xHeaterCycle.Schedule.defaultCoolDown)
    }

    /// The TMP117 settings the options ask for, the chip's power-on values where they say nothing.
    public var tmp117Settings: TMP117.Settings {
        let defaults = TMP117.Settings()
        return TMP117.Settings(mode: mode ?? defaults.mode, conversionCycle: conversionCycle ?? defaults.conversionCycle,
                               averaging: averaging ?? defaults.averaging)
    }

    /// The MAX30205 settings the options ask for, the chip's power-on values where they say nothing.
    public var max30205Settings: MAX30205.Settings {
        let defaults = MAX30205.Settings()
        return MAX30205.Settings(mode: mode ?? defaults.mode, dataFormat: dataFormat ?? defaults.dataFormat)
    }

    /// max30102 / max30101: the sample rate and LED current asked for (both LEDs alike), the driver's defaults elsewhere.
    public var max3010xConfiguration: MAX3010x.Configuration { ppgConfiguration(MAX3010x.Configuration()) }

    /// max30100: as `max3010xConfiguration`, for its own register map.
    public var max30100Configuration: MAX30100.Configuration { ppgConfiguration(MAX30100.Configuration()) }

    /// The chip's defaults with what the options ask for.
    private func ppgConfiguration<Configuration: PPGLEDConfiguration>(_ defaults: Configuration) -> Configuration {
        var configuration = defaults
        if let sampleRate { configuration.sampleRate = sampleRate }
        if let ledCurrentMilliamps {
            configuration.redMilliamps = ledCurrentMilliamps
            configuration.irMilliamps = ledCurrentMilliamps
        }
        return configuration
    }

    /// gpio-pulse: the `edge` asked for; rising when none is.
    public var gpioEdge: GPIOEdgeSelection {
        switch edge {
        case "falling": .falling
        case "both": .both
        default: .rising
        }
    }

    /// gpio-pulse: the `bias` asked for; pull-down when none is.
    public var gpioBias: GPIOBias {
        switch bias {
        case "pull-up": .pullUp
        case "disabled": .disabled
        case "as-is": .asIs
        default: .pullDown
        }
    }

    /// bme280: an `oversampling` ratio as the driver takes it; `fallback` when the channel's is not set.
    public static func bme280Oversampling(_ factor: Int?, default fallback: BME280.Oversampling) -> BME280.Oversampling {
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
}

/// What a simulated chip reports on the `simulated` board (ignored on real boards).
public struct SimulationSettings: Sendable, Equatable {
    /// Temperature in °C the simulated chip reports.
    public var celsius: Double?
    /// Relative humidity in %.
    public var relativeHumidity: Double?
    /// Pressure in Pa.
    public var pascals: Double?
    /// Heart rate of the synthetic pulse wave.
    public var beatsPerMinute: Double?
    /// Battery state of charge in %.
    public var batteryPercent: Double?
    /// The chip stops answering this long after start (fault injection for demos and tests).
    public var failAfter: Duration?
    /// Raw register bytes by start register (tmp102, mcp9808, bme280), instead of values: what a
    /// datasheet example lists, so a test's expectation need not come from our own conversions.
    public var registers: [RegisterBlock]

    public struct RegisterBlock: Sendable, Equatable {
        public var start: UInt8
        public var bytes: [UInt8]

        public init(start: UInt8, bytes: [UInt8]) {
            self.start = start
            self.bytes = bytes
        }
    }

    public init(celsius: Double? = nil, relativeHumidity: Double? = nil, pascals: Double? = nil,
                beatsPerMinute: Double? = nil, batteryPercent: Double? = nil, failAfter: Duration? = nil,
                registers: [RegisterBlock] = []) {
        self.registers = registers
        self.celsius = celsius
        self.relativeHumidity = relativeHumidity
        self.pascals = pascals
        self.beatsPerMinute = beatsPerMinute
        self.batteryPercent = batteryPercent
        self.failAfter = failAfter
    }
}
