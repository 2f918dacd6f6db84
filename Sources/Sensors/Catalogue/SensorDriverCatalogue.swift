/// Every driver blesensor has. Adding a driver is one file with its descriptor (see HDC1080.swift)
/// and one entry here; the order is the order of every list shown to users.
public enum SensorDriverCatalogue {
    public static let all: [any SensorDriverDescriptor] = [
        TMP102Driver(), MCP9808Driver(), BME280Driver(), SHT31Driver(), SHT4xDriver(),
        MAX3010xDriver(variant: .max30102), MAX3010xDriver(variant: .max30101), MAX17048Driver(),
        DS18B20Driver(), GPIOPulseDriver(), CPUTemperatureDriver(),
        TMP117Driver(), MAX30205Driver(), MLX90614Driver(), MAX30100Driver(), AHT20Driver(), SHTC3Driver(),
        KernelSensorDriver(kind: .iio), KernelSensorDriver(kind: .hwmon),
        HDC1080Driver(),
    ]

    private static let byName: [String: any SensorDriverDescriptor] = Dictionary(
        all.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })

    public static func descriptor(named name: String) -> (any SensorDriverDescriptor)? { byName[name] }
}
