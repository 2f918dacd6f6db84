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
