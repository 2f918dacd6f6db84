#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One line per update for `blesensor sensors`:
/// `12:00:01 room  bme280  21.50 °C  45.0 %RH  1013.25 hPa`.
public enum SensorLineFormatter {
    /// `time` is when the update arrived (local time); pass it explicitly in tests.
    public static func line(_ sensor: SensorStatus, at time: TimeOfDay = .now()) -> String {
        "\(time) \(sensor.name)  \(sensor.driver)  \(measurement(sensor))"
    }

    /// The line without time and names: `21.50 °C  45.0 %RH`, `failed: ... (2 failed reads)`, `no signal`.
    public static func measurement(_ sensor: SensorStatus) -> String {
        switch sensor.state {
        case .failed:
            let failures = sensor.failures == 1 ? "1 failed read" : "\(sensor.failures) failed reads"
            return sensor.error.map { "failed: \($0) (\(failures))" } ?? "failed (\(failures))"
        case .noSignal, .starting:
            return stateText(sensor.state)
        case .paused:
            // The last ambient values, still what the characteristics hold, then why no new ones.
            return values(sensor) + "  " + (sensor.error.map { "paused: \($0)" } ?? "paused")
        case .ok:
            return values(sensor)
        }
    }

    private static func values(_ sensor: SensorStatus) -> String {
        if !sensor.readings.isEmpty { return sensor.readings.map(reading).joined(separator: "  ") }
        return sensor.value.map { NumberText.quantity($0, unit: sensor.unit) } ?? "—"
    }

    /// `72 bpm  RR 812, 790 ms  no contact`: RR-intervals and a lost contact are what a heart-rate
    /// user checks; contact `detected`/`unsupported` is the normal case and left out.
    private static func reading(_ reading: QuantityReading) -> String {
        var text = NumberText.quantity(reading.value, unit: reading.unit)
        if let intervals = reading.rrIntervalsMilliseconds, !intervals.isEmpty {
            text += "  RR " + intervals.map { NumberText.fixed($0, decimals: 0) }.joined(separator: ", ") + " ms"
        }
        if reading.contact == "not-detected" { text += "  no contact" }
        return text
    }

    static func stateText(_ state: SensorStatus.State) -> String {
        switch state {
        case .starting: "starting"
        case .ok: "ok"
        case .noSignal: "no signal"
        case .paused: "paused"
        case .failed: "failed"
        }
    }
}

/// A wall-clock time of day, `12:00:01`.
public struct TimeOfDay: Sendable, Equatable, CustomStringConvertible {
    public var hour: Int
    public var minute: Int
    public var second: Int

    public init(hour: Int, minute: Int, second: Int) {
        self.hour = hour
        self.minute = minute
        self.second = second
    }

    /// The current local time (TZ and /etc/localtime, as `date` shows it).
    public static func now() -> TimeOfDay {
        var seconds = time(nil)
        var parts = tm()
        guard localtime_r(&seconds, &parts) != nil else { return TimeOfDay(hour: 0, minute: 0, second: 0) }
        return TimeOfDay(hour: Int(parts.tm_hour), minute: Int(parts.tm_min), second: Int(parts.tm_sec))
    }

    public var description: String {
        func two(_ n: Int) -> String { n >= 0 && n < 10 ? "0\(n)" : "\(n)" }
        return "\(two(hour)):\(two(minute)):\(two(second))"
    }
}
