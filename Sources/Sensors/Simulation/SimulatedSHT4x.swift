#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Synchronization

/// SHT4x model: one-byte commands, 0xFD high-precision measurement (NACKs reads for ~6.9 ms),
/// serial number, soft reset, CRC corruption, and the six heater commands (reads NACKed for the
/// pulse, then the hot die's values).
public final class SimulatedSHT4x: SimulatedI2CDevice {
    private struct State {
        var celsius: Double
        var humidity: Double
        var readyAt: UInt64?
        var output: [UInt8] = []
        var corruptCRC = false
        var lastMeasurementCommand: UInt8?
        var heaterPulses: [SHT4x.HeaterPulse] = []
        /// After a pulse the die reads hot until then (`residualHeat`).
        var hot: (celsius: Double, humidity: Double, until: UInt64)?
    }
    private let state: Mutex<State>
    private let clock: any SensorClock
    public let serialNumber: UInt32
    /// Datasheet table 5, typical durations: high 6.9 ms, medium 3.7 ms, low 1.3 ms.
    static func typicalMeasurementNanoseconds(_ command: UInt8) -> UInt64? {
        switch command {
        case SHT4x.Command.measureHighPrecision.rawValue: 6_900_000
        case SHT4x.Command.measureMediumPrecision.rawValue: 3_700_000
        case SHT4x.Command.measureLowPrecision.rawValue: 1_300_000
        default: nil
        }
    }

    /// The command code of the last measurement started (which precision).
    public var lastMeasurementCommand: UInt8? { state.withLock { $0.lastMeasurementCommand } }

    /// Every heater pulse run, in order.
    public var heaterPulses: [SHT4x.HeaterPulse] { state.withLock { $0.heaterPulses } }

    /// A model, not the datasheet (which gives no figure): the die's rise at the end of a pulse grows
    /// with power and length; the relative humidity falls as the heated air holds more water.
    static func heated(celsius: Double, humidity: Double, by pulse: SHT4x.HeaterPulse) -> (celsius: Double, humidity: Double) {
        let rise = Double(pulse.power.milliwatts) * (pulse.duration == .seconds1 ? 0.25 : 0.1)
        // Magnus formula for the saturation vapour pressure over water.
        func saturation(_ t: Double) -> Double { exp(17.62 * t / (243.12 + t)) }
        return (celsius + rise, humidity * saturation(celsius) / saturation(celsius + rise))
    }

    /// The datasheet conversion backwards: S_T = (T + 45) / 175 × (2^16 − 1), S_RH = (RH + 6) / 125 × (2^16 − 1).
    static func signalWords(celsius: Double, humidity: Double) -> [UInt16] {
        [UInt16(saturating: ((celsius + 45) / 175 * 65535).rounded()), UInt16(saturating: ((humidity + 6) / 125 * 65535).rounded())]
    }

    static func pulse(for command: UInt8) -> SHT4x.HeaterPulse? {
        for power in SHT4x.HeaterPower.allCases {
            for duration in SHT4x.HeaterDuration.allCases {
                let pulse = SHT4x.HeaterPulse(power: power, duration: duration)
                if pulse.command.rawValue == command { return pulse }
            }
        }
        return nil
    }

    /// How long after a pulse the die still reads its heated values (a step, not a cooling curve):
    /// long enough that a reading the schedule should have withheld shows up as a hot one in tests.
    public let residualHeat: Duration

    public init(celsius: Double = 22, relativeHumidity: Double = 45, serialNumber: UInt32 = 0x0F1E_2D3C,
                residualHeat: Duration = .seconds(1), clock: any SensorClock) {
        state = Mutex(State(celsius: celsius, humidity: relativeHumidity))
        self.serialNumber = serialNumber
        self.residualHeat = residualHeat
        self.clock = clock
    }

    public func set(celsius: Double, relativeHumidity: Double) {
        state.withLock { $0.celsius = celsius; $0.humidity = relativeHumidity }
    }

    public func corruptCRC(_ on: Bool) { state.withLock { $0.corruptCRC = on } }

    public func receive(_ bytes: [UInt8]) throws(SimulatedI2CNack) {
        let now = clock.nowNanoseconds()
        try state.withLock { state throws(SimulatedI2CNack) in
            if let ready = state.readyAt, now < ready { throw .address }
            guard bytes.count == 1 else { throw .data }
            var words: [UInt16] = []
            switch bytes[0] {
            case SHT4x.Command.readSerialNumber.rawValue:
                words = [UInt16(serialNumber >> 16), UInt16(truncatingIfNeeded: serialNumber)]
            case SHT4x.Command.softReset.rawValue:
                state.output = []
                return
            case let command where Self.typicalMeasurementNanoseconds(command) != nil:
                state.readyAt = now + (Self.typicalMeasurementNanoseconds(command) ?? 0)
                state.lastMeasurementCommand = command
                let hot = state.hot.flatMap { now < $0.until ? $0 : nil }
                words = Self.signalWords(celsius: hot?.celsius ?? state.celsius, humidity: hot?.humidity ?? state.humidity)
            case let command:
                guard let pulse = Self.pulse(for: command) else { throw .data }
                let end = now.saturatingAdd(SHT4xHeaterCycle.nanoseconds(pulse.duration.nominal))
                state.readyAt = end
                state.heaterPulses.append(pulse)
                let hot = Self.heated(celsius: state.celsius, humidity: state.humidity, by: pulse)
                state.hot = (hot.celsius, hot.humidity, end.saturatingAdd(SHT4xHeaterCycle.nanoseconds(residualHeat)))
                words = Self.signalWords(celsius: hot.celsius, humidity: hot.humidity)
            }
            var frame = SensirionWords.encode(words)
            if state.corruptCRC { frame[2] ^= 0xFF; frame[5] ^= 0xFF }
            state.output = frame
        }
    }

    public func transmit(count: Int) throws(SimulatedI2CNack) -> [UInt8] {
        let now = clock.nowNanoseconds()
        return try state.withLock { state throws(SimulatedI2CNack) -> [UInt8] in
            if let ready = state.readyAt {
                guard now >= ready else { throw .address }
                state.readyAt = nil
            }
            guard !state.output.isEmpty else { throw .address }
            let out = Array(state.output.prefix(count))
            state.output = []
            return out + [UInt8](repeating: 0xFF, count: max(0, count - out.count))
        }
    }

    public func stop() {}
}
