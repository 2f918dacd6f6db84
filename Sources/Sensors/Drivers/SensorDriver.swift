/// The drivers the daemon and the CLI know, by the name used in configuration files and on the
/// command line, with what each measures and the address its chip answers on by default.
public enum SensorDriver: String, Sendable, Equatable, CaseIterable {
    case tmp102, mcp9808, bme280, sht31, sht4x, max30102, max30101, max17048, ds18b20
    case gpioPulse = "gpio-pulse"
    case cpuTemperature = "cpu-temp"
    case tmp117, max30205, mlx90614, max30100, aht20, shtc3
    /// A sensor the kernel already drives, read from /sys/bus/iio/devices or /sys/class/hwmon.
    case iio, hwmon

    /// The 7-bit I2C address the chip answers on by default; nil for non-I2C drivers.
    public var defaultAddress: UInt8? {
        switch self {
        case .tmp102: return TMP102.defaultAddress
        case .mcp9808: return MCP9808.defaultAddress
        case .bme280: return BME280.defaultAddress
        case .sht31: return SHT31.defaultAddress
        case .sht4x: return SHT4x.defaultAddress
        case .max30102, .max30101: return MAX3010x.defaultAddress
        case .max17048: return MAX17048.defaultAddress
        case .ds18b20, .gpioPulse, .cpuTemperature: return nil
        case .tmp117: return TMP117.defaultAddress
        case .max30205: return MAX30205.defaultAddress
        case .mlx90614: return MLX90614.defaultAddress
        case .max30100: return MAX30100.defaultAddress
        case .aht20: return AHT20.defaultAddress
        case .shtc3: return SHTC3.defaultAddress
        case .iio, .hwmon: return nil
        }
    }

    /// Drivers on an I2C bus (the others are 1-Wire, GPIO, thermal sysfs and the kernel's own).
    public var usesI2C: Bool { defaultAddress != nil }

    /// The quantities a reading of this driver carries.
    public var quantities: [Quantity] {
        switch self {
        case .tmp102, .mcp9808, .ds18b20, .cpuTemperature: return [.temperature]
        case .bme280: return [.temperature, .humidity, .pressure]
        case .sht31, .sht4x: return [.temperature, .humidity]
        case .max30102, .max30101, .max30100: return [.heartRate, .oxygenSaturation]
        case .gpioPulse: return [.heartRate]
        case .max17048: return [.batteryLevel]
        case .tmp117, .max30205: return [.temperature]
        // The object (skin) temperature; the chip's own ambient reading is shown by `sensor read`.
        case .mlx90614: return [.temperature]
        case .aht20, .shtc3, .hwmon: return [.temperature, .humidity]
        case .iio: return [.temperature, .humidity, .pressure]
        }
    }
}

/// A physical quantity a sensor measures.
public enum Quantity: String, Sendable, Equatable, Hashable, CaseIterable {
    case temperature, humidity, pressure
    case heartRate = "heart-rate"
    case batteryLevel = "battery-level"
    /// SpO2 from a pulse oximeter's red/IR ratio.
    case oxygenSaturation = "spo2"

    public var unit: String {
        switch self {
        case .temperature: return "°C"
        case .humidity: return "%RH"
        case .pressure: return "Pa"
        case .heartRate: return "bpm"
        case .batteryLevel, .oxygenSaturation: return "%"
        }
    }
}
