import Synchronization

/// SHTC3 model: asleep after power-up (everything but wake-up is NACKed), 16-bit commands with the
/// Sensirion CRC, ID register, a normal-mode measurement NACKing reads for ~10.8 ms (typical), and
/// CRC corruption.
public final class SimulatedSHTC3: SimulatedI2CDevice {
    static let typicalMeasurementNanoseconds: UInt64 = 10_800_000

    private struct State {
        var celsius: Double
        var humidity: Double
        var asleep = true
        var readyAt: UInt64?
        var output: [UInt8] = []
        var corruptCRC = false
        var id: UInt16
        /// Signal words from the datasheet, used instead of the values when set.
        var rawWords: (temperature: UInt16, humidity: UInt16)?
    }
    private let state: Mutex<State>
    private let clock: any SensorClock

    /// `id` lets tests model another chip; 0x0887 is a plausible SHTC3 ID.
    public init(celsius: Double = 22, relativeHumidity: Double = 45, id: UInt16 = 0x0887, clock: any SensorClock) {
        state = Mutex(State(celsius: celsius, humidity: relativeHumidity, id: id))
        self.clock = clock
    }

    public func set(celsius: Double, relativeHumidity: Double) {
        state.withLock { $0.celsius = celsius; $0.humidity = relativeHumidity; $0.rawWords = nil }
    }

    /// The temperature and humidity signal words S_T and S_RH (datasheet 5.11).
    public func setRawWords(temperature: UInt16, humidity: UInt16) { state.withLock { $0.rawWords = (temperature, humidity) } }

    public func corruptCRC(_ on: Bool) { state.withLock { $0.corruptCRC = on } }

    public var isAsleep: Bool { state.withLock { $0.asleep } }

    public func receive(_ bytes: [UInt8]) throws(SimulatedI2CNack) {
        let now = clock.nowNanoseconds()
        try state.withLock { state throws(SimulatedI2CNack) in
            if let ready = state.readyAt, now < ready { throw .address }
            guard bytes.count == 2 else { throw .data }
            let command = UInt16(bytes[0]) << 8 | UInt16(bytes[1])
            if state.asleep {
                guard command == SHTC3.Command.wakeup.rawValue else { throw .address }
                state.asleep = false
                return
            }
            state.output = []
            switch command {
            case SHTC3.Command.wakeup.rawValue: break
            case SHTC3.Command.sleep.rawValue: state.asleep = true
            case SHTC3.Command.softReset.rawValue: break
            case SHTC3.Command.readID.rawValue: state.output = SensirionWords.encode([state.id])
            case SHTC3.Command.measureTemperatureFirst.rawValue:
                state.readyAt = now + Self.typicalMeasurementNanoseconds
                let t = state.rawWords?.temperature ?? UInt16(saturating: ((state.celsius + 45) / 175 * 65536).rounded())
                let h = state.rawWords?.humidity ?? UInt16(saturating: (state.humidity / 100 * 65536).rounded())
                state.output = SensirionWords.encode([t, h])
            default: throw .data
            }
            if state.corruptCRC { for index in stride(from: 2, to: state.output.count, by: 3) { state.output[index] ^= 0xFF } }
        }
    }

    public func transmit(count: Int) throws(SimulatedI2CNack) -> [UInt8] {
        let now = clock.nowNanoseconds()
        return try state.withLock { state throws(SimulatedI2CNack) -> [UInt8] in
            if let ready = state.readyAt {
                guard now >= ready else { throw .address }
                state.readyAt = nil
            }
            guard !state.asleep, !state.output.isEmpty else { throw .address }
            let out = Array(state.output.prefix(count))
            state.output = []
            return out + [UInt8](repeating: 0xFF, count: max(0, count - out.count))
        }
    }

    public func stop() {}
}
