/// Sensirion frames: each 16-bit word (MSB first) is followed by its CRC-8.
enum SensirionWords {
    static func decode(_ bytes: [UInt8], words: Int, sensor: String) throws(SensorError) -> [UInt16] {
        guard bytes.count == words * 3 else {
            throw .invalidData(sensor: sensor, reason: "expected \(words * 3) bytes, got \(bytes.count)")
        }
        var result: [UInt16] = []
        for index in 0..<words {
            let chunk = bytes[(index * 3)..<(index * 3 + 2)]
            let computed = CRC8.sensirion(chunk)
            let received = bytes[index * 3 + 2]
            guard computed == received else { throw .crcMismatch(sensor: sensor, expected: computed, received: received) }
            result.append(UInt16(chunk[chunk.startIndex]) << 8 | UInt16(chunk[chunk.startIndex + 1]))
        }
        return result
    }

    static func encode(_ words: [UInt16]) -> [UInt8] {
        words.flatMap { word -> [UInt8] in
            let pair = [UInt8(word >> 8), UInt8(truncatingIfNeeded: word)]
            return pair + [CRC8.sensirion(pair)]
        }
    }
}
