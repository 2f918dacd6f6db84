import ArgumentParser

/// The drivers `sensor read` knows, with their default addresses.
public enum SensorDriverName: String, CaseIterable, ExpressibleByArgument, Sendable {
    case tmp102, mcp9808, bme280, sht31, sht4x, max30102, max30101, max17048, ds18b20
    case gpioPulse = "gpio-pulse"
    case cpuTemp = "cpu-temp"

    public var defaultAddress: UInt8? {
        switch self {
        case .tmp102: return 0x48
        case .mcp9808: return 0x18
        case .bme280: return 0x76
        case .sht31, .sht4x: return 0x44
        case .max30102, .max30101: return 0x57
        case .max17048: return 0x36
        case .ds18b20, .gpioPulse, .cpuTemp: return nil
        }
    }
}
