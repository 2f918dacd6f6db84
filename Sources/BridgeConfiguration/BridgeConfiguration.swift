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
    /// `mqtt:`; nil (the default) publishes nothing.
    public var mqtt: MQTTSettings? = nil
    /// BTHome advertisements of the readings; nil (off) without a `broadcast:` section.
    public var broadcast: BroadcastSettings? = nil
    /// Set when the file says `board: auto`: the device-tree model and the board it picked.
    public var boardChoice: BoardChoice? = nil
    /// The Prometheus endpoint; nil: off.
    public var metrics: MetricsSettings? = nil

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
