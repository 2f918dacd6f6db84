/// The service watchdog systemd asked for (`WatchdogSec=` in the unit, passed as `WATCHDOG_USEC`),
/// as sd_watchdog_enabled(3) reads it.
public struct WatchdogSettings: Sendable, Equatable {
    /// systemd restarts the service when no `WATCHDOG=1` arrived for this long.
    public let interval: Duration

    /// How often to send `WATCHDOG=1`: half the interval, as sd_watchdog_enabled(3) advises, so
    /// one late ping (a busy scheduler, a slow sensor read) is not yet a restart.
    public var pingInterval: Duration { interval / 2 }

    /// Longer than any watchdog anyone means: a larger value is garbage or systemd's "infinity",
    /// and bounding it keeps clock arithmetic on `interval` far from overflow.
    public static let maximumInterval: Duration = .seconds(366 * 24 * 3600)

    public init?(interval: Duration) {
        guard interval > .zero, interval <= Self.maximumInterval else { return nil }
        self.interval = interval
    }

    /// What the environment says about the watchdog, with the reason when it is unusable.
    public enum Reading: Sendable, Equatable {
        case enabled(WatchdogSettings)
        /// `WATCHDOG_USEC` absent: no `WatchdogSec=`, or not started by systemd.
        case disabled
        /// `WATCHDOG_PID` names another process (a child that inherited our environment).
        case otherProcess(Int32)
        /// Present but not a usable value; treated as no watchdog.
        case invalid(variable: String, value: String, reason: String)
    }

    /// The watchdog for `processID`, or nil when none applies or the variables are unusable;
    /// never traps on garbage.
    public static func from(environment: [String: String], processID: Int32) -> WatchdogSettings? {
        guard case let .enabled(settings) = read(environment: environment, processID: processID) else { return nil }
        return settings
    }

    /// As `from(environment:processID:)`, keeping why there is no watchdog (for a log line).
    public static func read(environment: [String: String], processID: Int32) -> Reading {
        guard let text = environment["WATCHDOG_USEC"] else { return .disabled }
        if let pidText = environment["WATCHDOG_PID"] {
            guard let pid = parseDecimal(pidText), pid > 0, pid <= UInt64(Int32.max) else {
                return .invalid(variable: "WATCHDOG_PID", value: pidText, reason: "not a process ID")
            }
            guard Int32(pid) == processID else { return .otherProcess(Int32(pid)) }
        }
        guard let microseconds = parseDecimal(text) else {
            return .invalid(variable: "WATCHDOG_USEC", value: text, reason: "not a decimal number of microseconds")
        }
        guard microseconds > 0 else {
            return .invalid(variable: "WATCHDOG_USEC", value: text, reason: "zero")
        }
        // Compare before converting: Duration.microseconds(Int64(x)) would trap above Int64.max.
        let maximumMicroseconds = UInt64(maximumInterval.components.seconds) * 1_000_000
        guard microseconds <= maximumMicroseconds, let settings = WatchdogSettings(interval: .microseconds(Int64(microseconds))) else {
            return .invalid(variable: "WATCHDOG_USEC", value: text, reason: "longer than a year")
        }
        return .enabled(settings)
    }

    /// ASCII digits only (no sign, no spaces, no `0x`); nil on overflow.
    static func parseDecimal(_ text: String) -> UInt64? {
        guard !text.isEmpty else { return nil }
        var value: UInt64 = 0
        for byte in text.utf8 {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            let (shifted, overflowA) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflowB) = shifted.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
            if overflowA || overflowB { return nil }
            value = sum
        }
        return value
    }
}
