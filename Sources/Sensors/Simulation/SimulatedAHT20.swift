import Synchronization

/// AHT20 model: status command 0x71, calibration bit cleared until the 0xBE initialisation (when
/// modelled uncalibrated), measurement 0xAC 0x33 0x00 busy for 75 ms (the status busy bit stays
/// set until then), a 7-byte result with CRC, and faults for CRC corruption and a chip stuck busy.
public final class SimulatedAHT20: SimulatedI2CDevice {
    static let typicalMeasurementNanoseconds: UInt64 = 75_000_000

    private struct State {
        var celsius: Double
        var humidity: Double
        var calibrated: Bool
        var ignoresInitialization = false
        var readyAt: UInt64?
        var stuckBusy = false
        var corruptCRC = false
        var statusRequested = false
        /// 20-bit signals from the datasheet, used instead of the values when set.
        var rawSignals: (humidity: UInt32, temperature: UInt32)?
    }
    private let state: Mutex<State>
    private let clock: any SensorClock

    public init(celsius: Double = 22, relativeHumidity: Double = 45, calibrated: Bool = true, clock: any SensorClock) {
        state = Mutex(State(celsius: celsius, humidity: relativeHumidity, calibrated: calibrated))
        self.clock = clock
    }

    public func set(celsius: Double, relativeHumidity: Double) {
        state.withLock { $0.celsius = celsius; $0.humidity = relativeHumidity; $0.rawSignals = nil }
    }

    /// The 20-bit humidity and temperature signals S_RH and S_T (datasheet 6.1), packed by the chip.
    public func setRawSignals(humidity: UInt32, temperature: UInt32) {
        state.withLock { $0.rawSignals = (humidity & 0xFFFFF, temperature & 0xFFFFF) }
    }

    /// Status, S_RH (20 bits), S_T (20 bits), CRC (datasheet 5.4 step 4).
    static func frame(humidity: UInt32, temperature: UInt32, status: UInt8) -> [UInt8] {
        let data: [UInt8] = [status, UInt8(truncatingIfNeeded: humidity >> 12), UInt8(truncatingIfNeeded: humidity >> 4),
                             UInt8(truncatingIfNeeded: humidity << 4) | UInt8(truncatingIfNeeded: temperature >> 16),
                             UInt8(truncatingIfNeeded: temperature >> 8), UInt8(truncatingIfNeeded: temperature)]
        return data + [CRC8.sensirion(data)]
    }

    public var isCalibrated: Bool { state.withLock { $0.calibrated } }

    public func corruptCRC(_ on: Bool) { state.withLock { $0.corruptCRC = on } }
    /// Fault injection: measurements never finish.
    public func stickBusy(_ on: Bool) { state.withLock { $0.stuckBusy = on } }
    /// Fault injection: the initialisation command does not set the calibration bit.
    public func ignoreInitialization(_ on: Bool) { state.withLock { $0.ignoresInitialization = on } }

    private static func status(_ state: State, now: UInt64) -> UInt8 {
        let busy = state.stuckBusy || state.readyAt.map { now < $0 } ?? false
        return (busy ? AHT20.busyBit : 0) | (state.calibrated ? AHT20.calibratedBit : 0) | 0x10
    }

    public func receive(_ bytes: [UInt8]) throws(SimulatedI2CNack) {
        let now = clock.nowNanoseconds()
        try state.withLock { state throws(SimulatedI2CNack) in
            state.statusRequested = false
            switch bytes {
            case AHT20.statusCommand: state.statusRequested = true
            case AHT20.initializeCommand: if !state.ignoresInitialization { state.calibrated = true }
            case AHT20.triggerCommand: state.readyAt = now + Self.typicalMeasurementNanoseconds
            default: throw .data
            }
        }
    }

    public func transmit(count: Int) throws(SimulatedI2CNack) -> [UInt8] {
        let now = clock.nowNanoseconds()
        return state.withLock { state in
            let status = Self.status(state, now: now)
            var frame: [UInt8]
            if state.statusRequested || status & AHT20.busyBit != 0 || state.readyAt == nil {
                // Busy or no result: the chip sends its status followed by stale bytes.
                frame = [status, 0, 0, 0, 0, 0, 0]
            } else {
                // Datasheet 6.1 backwards: RH = S_RH / 2^20 × 100 %, T = S_T / 2^20 × 200 − 50 °C.
                let raw = state.rawSignals ?? (min(0xFFFFF, UInt32(saturating: (state.humidity / 100 * 1_048_576).rounded())),
                                               min(0xFFFFF, UInt32(saturating: ((state.celsius + 50) / 200 * 1_048_576).rounded())))
                frame = Self.frame(humidity: raw.humidity, temperature: raw.temperature, status: status)
                if state.corruptCRC { frame[6] ^= 0xFF }
            }
            return Array(frame.prefix(count)) + [UInt8](repeating: 0xFF, count: max(0, count - frame.count))
        }
    }

    public func stop() {}
}
