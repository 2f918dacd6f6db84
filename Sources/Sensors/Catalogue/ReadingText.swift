import Foundation

/// How `blesensor sensor read` prints values: the same words for every driver.
public enum ReadingText {
    public static func temperature(_ celsius: Double, unit: TemperatureUnit = .celsius) -> String {
        String(format: "%.2f ", unit.value(celsius: celsius)) + unit.symbol
    }

    /// ", 45.0 %RH", clamped: as the daemon does, an offset cannot push humidity outside 0…100 %.
    public static func humidity(_ percent: Double) -> String {
        String(format: ", %.1f %%RH", clampedHumidity(percent))
    }

    public static func clampedHumidity(_ value: Double) -> Double { min(100, max(0, value)) }

    public static func heartRate(_ heartRate: HeartRateReading, name: String) -> String {
        if heartRate.beatsPerMinute == nil, heartRate.contact == .notDetected {
            return "\(name): no contact (no finger on the sensor)"
        }
        guard let bpm = heartRate.beatsPerMinute else {
            return "\(name): collecting beats (no rate yet)"
        }
        let rr = heartRate.rrIntervalsMilliseconds.map { String(format: "%.0f", $0) }.joined(separator: " ")
        return String(format: "\(name): %.0f bpm", bpm) + (rr.isEmpty ? "" : ", RR ms: \(rr)")
    }

    /// SpO2 with its perfusion index, or why there is none (never a number from a gated signal).
    public static func oxygenSaturation(_ oxygenSaturation: Result<SpO2Estimator.Estimate, SpO2Estimator.Gate>) -> String {
        switch oxygenSaturation {
        case let .success(estimate):
            return String(format: "SpO2 %.1f %% (perfusion index %.2f %%)", estimate.percent, estimate.perfusionIndexPercent)
        case let .failure(gate):
            return "SpO2 unavailable: \(gate)"
        }
    }
}
