/// CRC-8 variants used by the sensors here.
public enum CRC8 {
    /// Sensirion SHT3x/SHT4x: polynomial 0x31 (x^8+x^5+x^4+1), init 0xFF, no reflection, no final XOR.
    public static func sensirion<C: Collection>(_ bytes: C) -> UInt8 where C.Element == UInt8 {
        var crc: UInt8 = 0xFF
        for byte in bytes {
            crc ^= byte
            for _ in 0..<8 {
                crc = crc & 0x80 != 0 ? (crc << 1) ^ 0x31 : crc << 1
            }
        }
        return crc
    }

    /// Maxim/Dallas 1-Wire (DS18B20 scratchpad): polynomial 0x31 reflected (0x8C), init 0.
    public static func maxim<C: Collection>(_ bytes: C) -> UInt8 where C.Element == UInt8 {
        var crc: UInt8 = 0
        for byte in bytes {
            var value = byte
            for _ in 0..<8 {
                let mix = (crc ^ value) & 0x01
                crc >>= 1
                if mix != 0 { crc ^= 0x8C }
                value >>= 1
            }
        }
        return crc
    }

    /// SMBus Packet Error Code: polynomial 0x07 (x^8+x^2+x+1), init 0, no reflection (SMBus 3.1 §6.4).
    public static func smbusPEC<C: Collection>(_ bytes: C) -> UInt8 where C.Element == UInt8 {
        var crc: UInt8 = 0
        for byte in bytes {
            crc ^= byte
            for _ in 0..<8 {
                crc = crc & 0x80 != 0 ? (crc << 1) ^ 0x07 : crc << 1
            }
        }
        return crc
    }
}
