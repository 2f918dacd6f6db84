/// Pointer-register protocol shared by TMP102, MCP9808 and MAX17048: the first written byte selects
/// a 16-bit register, following bytes write it MSB first, reads stream MSB then LSB.
struct WordRegisterFile: Sendable {
    var registers: [UInt8: UInt16]
    var writable: Set<UInt8>
    var pointer: UInt8 = 0
    private var readOffset = 0

    init(registers: [UInt8: UInt16], writable: Set<UInt8>) {
        self.registers = registers
        self.writable = writable
    }

    /// Returns the register written, if the write completed a word.
    mutating func receive(_ bytes: [UInt8]) throws(SimulatedI2CNack) -> UInt8? {
        guard let first = bytes.first else { return nil }
        guard registers[first] != nil else { throw .data }
        pointer = first
        readOffset = 0
        guard bytes.count >= 3 else { return nil }
        guard writable.contains(first) else { throw .data }
        registers[first] = UInt16(bytes[1]) << 8 | UInt16(bytes[2])
        return first
    }

    mutating func transmit(count: Int) -> [UInt8] {
        let value = registers[pointer] ?? 0xFFFF
        var out: [UInt8] = []
        for _ in 0..<count {
            out.append(readOffset % 2 == 0 ? UInt8(value >> 8) : UInt8(truncatingIfNeeded: value))
            readOffset += 1
        }
        return out
    }

    mutating func stop() { readOffset = 0 }
}
