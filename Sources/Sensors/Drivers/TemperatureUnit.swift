/// The unit a sensor's temperature is shown in. Drivers, calibration offsets and the Environmental
/// Sensing Temperature characteristic (0x2A6E, Celsius by definition) stay in °C; only what a person
/// reads (the CLI, status lines) and the Health Thermometer measurement (which has a Fahrenheit flag)
/// follow this.
public enum TemperatureUnit: String, Sendable, CaseIterable {
    case celsius, fahrenheit

    public var symbol: String { self == .celsius ? "°C" : "°F" }

    /// `celsius` in this unit: °F = °C × 9/5 + 32.
    public func value(celsius: Double) -> Double {
        self == .celsius ? celsius : celsius * 9 / 5 + 32
    }
}
