extension SHT4x {
    /// Heater power at VDD 3.3 V (datasheet 4.9); lower supply voltages give less.
    public enum HeaterPower: String, Sendable, CaseIterable {
        case milliwatts20 = "20mw"
        case milliwatts110 = "110mw"
        case milliwatts200 = "200mw"

        public var milliwatts: Int {
            switch self {
            case .milliwatts20: 20
            case .milliwatts110: 110
            case .milliwatts200: 200
            }
        }
    }

    /// How long the heater stays on; the datasheet gives 1.1 s and 0.11 s as the longest.
    public enum HeaterDuration: String, Sendable, CaseIterable {
        case milliseconds100 = "100ms"
        case seconds1 = "1s"

        public var nominal: Duration { self == .seconds1 ? .seconds(1) : .milliseconds(100) }
        public var maxMilliseconds: Double { self == .seconds1 ? 1100 : 110 }
    }

    /// One heater pulse: a power for a duration, each pair its own command.
    public struct HeaterPulse: Sendable, Equatable, CustomStringConvertible {
        public var power: HeaterPower
        public var duration: HeaterDuration

        public init(power: HeaterPower, duration: HeaterDuration) {
            self.power = power
            self.duration = duration
        }

        public var command: Command {
            switch (power, duration) {
            case (.milliwatts200, .seconds1): .heat200mW1s
            case (.milliwatts200, .milliseconds100): .heat200mW100ms
            case (.milliwatts110, .seconds1): .heat110mW1s
            case (.milliwatts110, .milliseconds100): .heat110mW100ms
            case (.milliwatts20, .seconds1): .heat20mW1s
            case (.milliwatts20, .milliseconds100): .heat20mW100ms
            }
        }

        /// The datasheet rates the heater for at most 10 % of the time, so pulses must be at least
        /// ten of the longest pulse (1.1 s, 0.11 s) apart.
        public var minimumPeriod: Duration { .milliseconds(Int64(duration.maxMilliseconds) * 10) }

        /// The longest the pulse poll takes.
        public var longest: Duration { .milliseconds(Int64(duration.maxMilliseconds)) }

        public var description: String { "\(power.milliwatts) mW for \(duration == .seconds1 ? "1 s" : "100 ms")" }
    }
}
