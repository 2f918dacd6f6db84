import Synchronization

/// SHT31 model: 16-bit commands with the Sensirion CRC, single-shot measurement that NACKs reads
/// until ~12.5 ms (typical) have passed, status register with reset/heater bits, CRC corruption.
public final class SimulatedSHT31: SimulatedI2CDevice {
    private struct State {
        var celsius: Double
        var humidity: Double
        var status: UInt16 = 0x8010  // alert pending + reset detected after power-up
        var readyAt: UInt64?
        var output: [UInt8] = []
        var corruptCRC = false
        var lastMeasurementCommand: UInt16?
    }
    private let state: Mutex<State>
    private let clock: any SensorClock
    /// Datasheet table 4, typical single-shot durations: high 12.5 ms, medium 4.5 ms, low 2.5 ms.
    static func typicalMeasurementNanoseconds(_ command: UInt16) -> UInt64? {
        switch command {
        case SHT31.Command.singleShotHigh.rawValue: 12_500_000
        case SHT31.Command.singleShotMedium.rawValue: 4_500_000
        case SHT31.Command.singleShotLow.rawValue: 2_500_000
        default: nil
        }
    }

    public init(celsius: Double = 22, relativeHumidity: Double = 45, clock: any SensorClock) {
        state = Mutex(State(celsius: celsius, humidity: relativeHumidity))
        self.clock = clock
    }

    public func set(celsius: Double, relativeHumidity: Double) {
        state.withLock { $0.celsius = celsius; $0.humidity = relativeHumidity }
    }

    /// Flips the CRC byte of every word sent from now on.
    public func corruptCRC(_ on: Bool) { state.withLock { $0.corruptCRC = on } }

    public var status: UInt16 { state.withLock { $0.status } }

    /// The command code of the last single-shot measurement started (which repeatability).
    public var lastMeasurementCommand: UInt16? { state.withLock { $0.lastMeasurementCommand } }

    private static func frame(_ words: [UInt16], corrupt: Bool) -> [UInt8] {
        var bytes = SensirionWords.encode(words)
        if corrupt { for index in stride(from: 2, to: bytes.count, by: 3) { bytes[index] ^= 0xFF } }
        return bytes
    }

    public func receive(_ bytes: [UInt8]) throws(SimulatedI2CNack) {
        let now = clock.nowNanoseconds()
        try state.withLock { state throws(SimulatedI2CNack) in
            // While a no-stretch measurement runs the chip ignores its address.
            if let ready = state.readyAt, now < ready { throw .address }
            guard bytes.count == 2 else { throw .data }
            let command = UInt16(bytes[0]) << 8 | UInt16(bytes[1])
            state.output = []
            if let duration = Self.typicalMeasurementNanoseconds(command) {
                state.readyAt = now + duration
                state.lastMeasurementCommand = command
                let t = UInt16(saturating: ((state.celsius + 45) / 175 * 65535).rounded())
                let h = UInt16(saturating: (state.humidity / 100 * 65535).rounded())
                state.output = Self.frame([t, h], corrupt: state.corruptCRC)
                return
            }
            switch command {
            case SHT31.Command.readStatus.rawValue:
                state.output = Self.frame([state.status], corrupt: state.corruptCRC)
            case SHT31.Command.clearStatus.rawValue:
                state.status &= ~0x8C10
            case SHT31.Command.softReset.rawValue:
                state.status = 0x8010
            case SHT31.Command.heaterOn.rawValue:
                state.status |= 0x2000
            case SHT31.Command.heaterOff.rawValue:
                state.status &= ~0x2000
            default:
                state.status |= 0x0002
                throw .data
            }
        }
    }

    public func transmit(count: Int) throws(SimulatedI2CNack) -> [UInt8] {
        let now = clock.nowNanoseconds()
        return try state.withLock { state throws(SimulatedI2CNack) -> [UInt8] in
            if let ready = state.readyAt {
                guard now >= ready else { throw .address }
                state.readyAt = nil
            }
            // No data pending: the chip NACKs the read header.
            guard !state.output.isEmpty else { throw .address }
            let out = Array(state.output.prefix(count))
            state.output = []
            return out + [UInt8](repeating: 0xFF, count: max(0, count - out.count))
        }
    }

    public func stop() {}
}
