import Synchronization

/// MAX30205 model: an 8-bit configuration register among 16-bit ones, continuous conversions every
/// 44 ms (typical) in the configured data format, shutdown holding the last result, and one-shot
/// conversions from shutdown whose ONE-SHOT bit clears when done.
public final class SimulatedMAX30205: SimulatedI2CDevice {
    static let typicalConversionNanoseconds: UInt64 = 44_000_000

    private struct State {
        var pointer: UInt8 = 0
        var readOffset = 0
        var temperature: UInt16 = 0
        var configuration: UInt8 = 0
        var hysteresis: UInt16 = 0x4B00
        var overTemperature: UInt16 = 0x5000
        var celsius: Double
        var conversionStartedAt: UInt64
        /// A register word from the datasheet, used instead of `celsius` when set.
        var rawTemperature: UInt16?
    }
    private let state: Mutex<State>
    private let clock: any SensorClock

    public init(celsius: Double = 37, clock: any SensorClock) {
        self.clock = clock
        state = Mutex(State(celsius: celsius, conversionStartedAt: clock.nowNanoseconds()))
    }

    public func setTemperature(_ celsius: Double) { state.withLock { $0.celsius = celsius; $0.rawTemperature = nil } }

    /// The temperature register word each conversion produces (its meaning depends on DATA FORMAT).
    public func setRawTemperature(_ word: UInt16) { state.withLock { $0.rawTemperature = word } }

    public var configuration: UInt8 { state.withLock { $0.configuration } }

    /// Fault injection: sets or clears SHUTDOWN as if another program had.
    public func setShutdown(_ on: Bool) {
        state.withLock { $0.configuration = on ? $0.configuration | MAX30205.shutdownBit : $0.configuration & ~MAX30205.shutdownBit }
    }

    /// Fault injection: a brown-out returns the registers to their power-on values.
    public func powerCycle() {
        let now = clock.nowNanoseconds()
        state.withLock { state in
            state.configuration = 0
            state.temperature = 0
            state.hysteresis = 0x4B00
            state.overTemperature = 0x5000
            state.conversionStartedAt = now
        }
    }

    private static func update(_ state: inout State, now: UInt64) {
        let done = now >= state.conversionStartedAt && now - state.conversionStartedAt >= typicalConversionNanoseconds
        let format: MAX30205.DataFormat = state.configuration & MAX30205.extendedFormatBit != 0 ? .extended : .normal
        if state.configuration & MAX30205.oneShotBit != 0 {
            guard done else { return }
            state.configuration &= ~MAX30205.oneShotBit
        } else if state.configuration & MAX30205.shutdownBit != 0 || !done {
            return
        }
        state.temperature = state.rawTemperature ?? MAX30205.raw(celsius: state.celsius, format: format)
    }

    public func receive(_ bytes: [UInt8]) throws(SimulatedI2CNack) {
        let now = clock.nowNanoseconds()
        try state.withLock { state throws(SimulatedI2CNack) in
            Self.update(&state, now: now)
            guard let register = bytes.first else { return }
            guard register <= 0x03 else { throw .data }
            state.pointer = register
            state.readOffset = 0
            let data = Array(bytes.dropFirst())
            switch register {
            case 0x01 where !data.isEmpty:
                let value = data[0]
                // ONE-SHOT only starts a conversion from shutdown; a format change restarts conversions.
                let oneShot = value & MAX30205.oneShotBit != 0 && value & MAX30205.shutdownBit != 0
                state.configuration = oneShot ? value : value & ~MAX30205.oneShotBit
                state.conversionStartedAt = now
            case 0x02 where data.count >= 2: state.hysteresis = UInt16(data[0]) << 8 | UInt16(data[1])
            case 0x03 where data.count >= 2: state.overTemperature = UInt16(data[0]) << 8 | UInt16(data[1])
            case 0x00 where !data.isEmpty: throw .data
            default: break
            }
        }
    }

    public func transmit(count: Int) throws(SimulatedI2CNack) -> [UInt8] {
        let now = clock.nowNanoseconds()
        return state.withLock { state in
            Self.update(&state, now: now)
            var out: [UInt8] = []
            for _ in 0..<count {
                let word: UInt16 = switch state.pointer {
                case 0x00: state.temperature
                case 0x02: state.hysteresis
                case 0x03: state.overTemperature
                default: UInt16(state.configuration) << 8 | UInt16(state.configuration)
                }
                out.append(state.readOffset % 2 == 0 ? UInt8(word >> 8) : UInt8(truncatingIfNeeded: word))
                state.readOffset += 1
            }
            return out
        }
    }

    public func stop() { state.withLock { $0.readOffset = 0 } }
}
