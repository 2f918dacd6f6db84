import ArgumentParser
import Sensors

/// The drivers `sensor read` knows, with their default addresses.
public enum SensorDriverName: String, CaseIterable, ExpressibleByArgument, Sendable {
    case tmp102, mcp9808, bme280, sht31, sht4x, max30102, max30101, max17048, ds18b20
    case gpioPulse = "gpio-pulse"
    case cpuTemp = "cpu-temp"

    public var defaultAddress: UInt8? {
        switch self {
        case .tmp102: return TMP102.defaultAddress
        case .mcp9808: return MCP9808.defaultAddress
        case .bme280: return BME280.defaultAddress
        case .sht31: return SHT31.defaultAddress
        case .sht4x: return SHT4x.defaultAddress
        case .max30102, .max30101: return MAX3010x.defaultAddress
        case .max17048: return MAX17048.defaultAddress
        case .ds18b20, .gpioPulse, .cpuTemp: return nil
        }
    }
}
