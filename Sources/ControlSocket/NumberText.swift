/// Fixed-point text without Foundation's String(format:) (FoundationEssentials has none).
enum NumberText {
    /// `value` rounded to `decimals` places: fixed(21.5, 2) == "21.50".
    static func fixed(_ value: Double, decimals: Int) -> String {
        guard value.isFinite else { return value.isNaN ? "nan" : (value < 0 ? "-inf" : "inf") }
        let decimals = min(max(decimals, 0), 6)
        var scale: Int64 = 1
        for _ in 0..<decimals { scale *= 10 }
        let scaled = (abs(value) * Double(scale)).rounded()
        // Beyond 2^53 the digits are not exact anyway; Swift's shortest form is honest there.
        guard scaled < 9_007_199_254_740_992 else { return "\(value)" }
        let units = Int64(scaled)
        let sign = value < 0 && units != 0 ? "-" : ""
        guard decimals > 0 else { return "\(sign)\(units)" }
        let fraction = String(units % scale)
        return "\(sign)\(units / scale).\(String(repeating: "0", count: decimals - fraction.count))\(fraction)"
    }

    /// Decimals that match each unit's sensor resolution (bme280: 0.01 °C, 0.1 %RH, 0.01 hPa).
    static func decimals(forUnit unit: String) -> Int {
        switch unit {
        case "°C", "°F", "hPa", "V": 2
        case "%RH", "lx": 1
        case "bpm", "%", "ms", "ppm": 0
        default: 2
        }
    }

    /// `21.50 °C`, `72 bpm`.
    static func quantity(_ value: Double, unit: String) -> String {
        let number = fixed(value, decimals: decimals(forUnit: unit))
        return unit.isEmpty ? number : "\(number) \(unit)"
    }

    /// `1h 02m 03s`, `2d 01h 02m 03s`, `5m 07s`, `42s`; whole seconds, rounded down.
    static func duration(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds >= 1 else { return "0s" }
        let total = seconds >= 9.2e18 ? Int64.max : Int64(seconds)
        let (days, hours, minutes, secs) = (total / 86_400, total / 3_600 % 24, total / 60 % 60, total % 60)
        func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
        if days > 0 { return "\(days)d \(two(hours))h \(two(minutes))m \(two(secs))s" }
        if hours > 0 { return "\(hours)h \(two(minutes))m \(two(secs))s" }
        if minutes > 0 { return "\(minutes)m \(two(secs))s" }
        return "\(secs)s"
    }

    /// A limit as a person sets it: `5 s`, `0.25 s`.
    static func seconds(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e9 ? "\(Int(value)) s" : "\(value) s"
    }

    /// Reading age: `0.8s` under ten seconds (sensor periods are often sub-second), else as `duration`.
    static func age(_ seconds: Double?) -> String {
        guard let seconds, seconds.isFinite else { return "—" }
        if seconds < 10 { return "\(fixed(max(seconds, 0), decimals: 1))s" }
        return duration(seconds)
    }
}
