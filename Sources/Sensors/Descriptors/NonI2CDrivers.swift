/// The drivers that are not on an I2C bus: the daemon and `sensor read` open each by its
/// connection (`SensorConnection`), with the board's GPIO chips and sysfs roots.

/// DS18B20 through the kernel's w1-therm driver.
public struct DS18B20Driver: SensorDriverDescriptor {
    public let name = "ds18b20"
    public let connection = SensorConnection.oneWire
    public let quantities: [Quantity] = [.temperature]
    public init() {}
}

/// A heart-rate strap's or module's pulse output on a GPIO line.
public struct GPIOPulseDriver: SensorDriverDescriptor {
    public let name = "gpio-pulse"
    public let connection = SensorConnection.gpio
    public let quantities: [Quantity] = [.heartRate]
    public let optionKeys = ["edge", "bias"]
    public init() {}

    /// `edge` (nil: rising) and `bias` (nil: pull-down) of the pulse line.
    public struct Settings: DriverSettings, Defaultable {
        public var edge: String?
        public var bias: String?
        public init(edge: String? = nil, bias: String? = nil) {
            self.edge = edge
            self.bias = bias
        }
        public init() { self.init(edge: nil) }

        public var edgeSelection: GPIOEdgeSelection {
            switch edge {
            case "falling": .falling
            case "both": .both
            default: .rising
            }
        }

        public var lineBias: GPIOBias {
            switch bias {
            case "pull-up": .pullUp
            case "disabled": .disabled
            case "as-is": .asIs
            default: .pullDown
            }
        }
    }

    public func readOption(_ key: String, from reader: any DriverOptionReader, into options: inout DriverOptions) {
        options.update(Settings.self) { settings in
            switch key {
            case "edge": settings.edge = reader.choice(key, among: ["rising", "falling", "both"])
            case "bias": settings.bias = reader.choice(key, among: ["pull-up", "pull-down", "disabled", "as-is"])
            default: break
            }
        }
    }
}

/// The SoC's temperature from its thermal zone.
public struct CPUTemperatureDriver: SensorDriverDescriptor {
    public let name = "cpu-temp"
    public let connection = SensorConnection.thermalZone
    public let quantities: [Quantity] = [.temperature]
    public init() {}
}

/// A sensor the kernel already drives, read from /sys/bus/iio/devices or /sys/class/hwmon.
public struct KernelSensorDriver: SensorDriverDescriptor {
    public let kind: KernelSensor.Kind
    public var name: String { kind.rawValue }
    public var connection: SensorConnection { .kernel(kind) }
    public var quantities: [Quantity] { kind == .iio ? [.temperature, .humidity, .pressure] : [.temperature, .humidity] }
    public init(kind: KernelSensor.Kind) { self.kind = kind }
}

extension SensorDriver {
    public static let ds18b20 = SensorDriver(DS18B20Driver())
    public static let gpioPulse = SensorDriver(GPIOPulseDriver())
    public static let cpuTemperature = SensorDriver(CPUTemperatureDriver())
    public static let iio = SensorDriver(KernelSensorDriver(kind: .iio))
    public static let hwmon = SensorDriver(KernelSensorDriver(kind: .hwmon))
}
