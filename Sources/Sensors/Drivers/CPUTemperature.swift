/// SoC temperature from the thermal zone whose type names the CPU (zone 0 otherwise).
public struct CPUTemperature: Sendable {
    public let zones: ThermalZones

    public init(zones: ThermalZones = ThermalZones()) {
        self.zones = zones
    }

    public func read() throws(SensorError) -> TemperatureReading {
        let all = zones.zones()
        guard let zone = all.first(where: { $0.type.lowercased().contains("cpu") }) ?? all.first else {
            throw .unavailable(sensor: "cpu-temp", reason: "no thermal_zone* under \(zones.root)")
        }
        let milli = try zones.milliCelsius(zone: zone.name)
        // Kernels report errors as absurd values on some boards; -273 °C or below is not a reading.
        guard milli > -273_000, milli < 200_000 else {
            throw .invalidData(sensor: "cpu-temp", reason: "\(zone.name) reports \(milli) m°C")
        }
        return TemperatureReading(celsius: Double(milli) / 1000)
    }
}
