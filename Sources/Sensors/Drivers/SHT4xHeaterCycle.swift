import BLECore
import Synchronization

/// Reads an SHT4x with its heater pulsed on a schedule (to drive off condensation and humidity creep
/// in damp air, Sensirion's reason for the heater), and keeps the hot die from being reported as
/// the room: the poll that runs the pulse and every poll in the cool-down after it throw
/// `.conditioning` instead of returning a value. Time comes from the injectable clock.
public final class SHT4xHeaterCycle: Sendable {
    public struct Schedule: Sendable, Equatable {
        public var pulse: SHT4x.HeaterPulse
        /// Time from one pulse to the next; at least `pulse.minimumPeriod` (10 % duty).
        public var every: Duration
        /// Time after a pulse during which readings are withheld while the die cools.
        public var coolDown: Duration

        /// The die's temperature response (τ63) is about 2 s; five of them bring a 1 s pulse's rise
        /// to within a few tenths of a degree.
        public static let defaultCoolDown: Duration = .seconds(10)

        public init(pulse: SHT4x.HeaterPulse, every: Duration, coolDown: Duration = defaultCoolDown) {
            self.pulse = pulse
            self.every = every
            self.coolDown = coolDown
        }
    }

    fileprivate struct State {
        var nextPulseAt: UInt64?
        var ambientAgainAt: UInt64?
        var ambientReadSincePulse = true
    }

    /// The schedule's state, kept by the owner across re-creations of the cycle (a source reopened
    /// after a bus error), so a failed pulse's cool-down and the duty limit outlive the source.
    public final class Memory: Sendable {
        fileprivate let state = Mutex(State())
        public init() {}
    }

    public let chip: SHT4x
    public let schedule: Schedule
    private let clock: any SensorClock
    private let memory: Memory

    public init(chip: SHT4x, schedule: Schedule, clock: any SensorClock, memory: Memory = Memory()) {
        self.chip = chip
        self.schedule = schedule
        self.clock = clock
        self.memory = memory
    }

    /// The first poll reads the ambient values; the first pulse comes one period later.
    public func read() throws(SensorError) -> TemperatureHumidityReading {
        let now = clock.nowNanoseconds()
        enum Step { case ambient, pulse, coolingDown(remaining: UInt64) }
        let step = memory.state.withLock { state -> Step in
            if let until = state.ambientAgainAt, now < until { return .coolingDown(remaining: until - now) }
            guard let next = state.nextPulseAt else {
                state.nextPulseAt = now.saturatingAdd(Self.nanoseconds(schedule.every))
                return .ambient
            }
            // A pulse only after an ambient read since the last one: polls as far apart as the
            // period (a central's Measurement Interval write) must not pulse or cool on every poll.
            guard now >= next, state.ambientReadSincePulse else { return .ambient }
            // Booked before the pulse: a pulse that fails on the bus may still have heated, and
            // the duty limit must hold either way.
            state.nextPulseAt = now.saturatingAdd(Self.nanoseconds(schedule.every))
            state.ambientReadSincePulse = false
            return .pulse
        }
        switch step {
        case .ambient:
            let reading = try chip.read()
            memory.state.withLock { $0.ambientReadSincePulse = true }
            return reading
        case let .coolingDown(remaining):
            throw .conditioning(sensor: "SHT4x", reason: "heater cool-down; ambient readings resume in \(Self.seconds(remaining))")
        case .pulse:
            // A pulse that failed on the bus may still have heated: it gets its cool-down too.
            defer { startCoolDown() }
            let hot = try chip.heat(schedule.pulse)
            throw .conditioning(sensor: "SHT4x", reason: "heater pulse (\(schedule.pulse)): the die read "
                + "\(Self.oneDecimal(hot.celsius)) °C, \(Self.oneDecimal(hot.relativeHumidity)) %RH, not the ambient values; "
                + "ambient readings resume in \(Self.seconds(Self.nanoseconds(schedule.coolDown)))")
        }
    }

    private func startCoolDown() {
        let end = clock.nowNanoseconds().saturatingAdd(Self.nanoseconds(schedule.coolDown))
        memory.state.withLock { $0.ambientAgainAt = end }
    }

    static func nanoseconds(_ duration: Duration) -> UInt64 { UInt64(clamping: max(0, duration.saturatingNanoseconds)) }

    private static func seconds(_ nanoseconds: UInt64) -> String { oneDecimal(Double(nanoseconds) / 1e9) + " s" }

    private static func oneDecimal(_ value: Double) -> String {
        guard value.isFinite else { return "\(value)" }
        let tenths = Int64(saturating: (abs(value) * 10).rounded())
        return "\(value < 0 && tenths > 0 ? "-" : "")\(tenths / 10).\(tenths % 10)"
    }
}
