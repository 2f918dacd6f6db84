import Synchronization

/// MLX90614 model: RAM reads of Ta (0x06) and Tobj1 (0x07) as SMBus words followed by their PEC,
/// with faults for a corrupted PEC and the object channel's error flag.
public final class SimulatedMLX90614: SimulatedI2CDevice {
    private struct State {
        var command: UInt8?
        var output: [UInt8] = []
        var objectCelsius: Double
        var ambientCelsius: Double
        var corruptPEC = false
        var objectError = false
        /// RAM words from the datasheet (Tobj1, Ta), used instead of the temperatures when set.
        var rawWords: (object: UInt16, ambient: UInt16)?
    }
    private let state: Mutex<State>
    /// The PEC covers the address, so the model must know the one it is attached at.
    public let address: UInt8

    public init(objectCelsius: Double = 36.5, ambientCelsius: Double = 23, address: UInt8 = MLX90614.defaultAddress) {
        state = Mutex(State(objectCelsius: objectCelsius, ambientCelsius: ambientCelsius))
        self.address = address
    }

    public func set(objectCelsius: Double, ambientCelsius: Double) {
        state.withLock { $0.objectCelsius = objectCelsius; $0.ambientCelsius = ambientCelsius; $0.rawWords = nil }
    }

    /// The Tobj1 and Ta RAM words as the datasheet gives them (0.02 K per LSB).
    public func setRawWords(object: UInt16, ambient: UInt16) { state.withLock { $0.rawWords = (object, ambient) } }

    /// Flips the PEC byte of every word sent from now on.
    public func corruptPEC(_ on: Bool) { state.withLock { $0.corruptPEC = on } }

    /// Sets bit 15 of Tobj1, as the chip does when its measurement failed.
    public func flagObjectError(_ on: Bool) { state.withLock { $0.objectError = on } }

    public func receive(_ bytes: [UInt8]) throws(SimulatedI2CNack) {
        try state.withLock { state throws(SimulatedI2CNack) in
            guard bytes.count == 1 else { throw .data }
            let word: UInt16
            switch bytes[0] {
            case MLX90614.RAM.ambient.rawValue: word = state.rawWords?.ambient ?? MLX90614.raw(celsius: state.ambientCelsius)
            case MLX90614.RAM.object1.rawValue:
                word = (state.rawWords?.object ?? MLX90614.raw(celsius: state.objectCelsius)) | (state.objectError ? MLX90614.errorFlag : 0)
            default: throw .data
            }
            let lsb = UInt8(truncatingIfNeeded: word), msb = UInt8(word >> 8)
            var pec = MLX90614.pec(address: address, command: bytes[0], lsb: lsb, msb: msb)
            if state.corruptPEC { pec ^= 0xFF }
            state.output = [lsb, msb, pec]
        }
    }

    public func transmit(count: Int) throws(SimulatedI2CNack) -> [UInt8] {
        state.withLock { state in
            let out = Array(state.output.prefix(count))
            state.output = Array(state.output.dropFirst(count))
            return out + [UInt8](repeating: 0xFF, count: max(0, count - out.count))
        }
    }

    public func stop() { state.withLock { $0.output = [] } }
}
