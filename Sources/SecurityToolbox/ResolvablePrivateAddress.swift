import BLECore

/// Resolvable private addresses (Vol 6 Part B 1.3.2.2, Vol 3 Part C 10.8.2.3): hash = ah(IRK, prand)
/// in the low 24 bits, prand in the high 24 bits with its two most significant bits 0b01.
public enum ResolvablePrivateAddress {
    /// A random address whose two most significant bits are 0b01.
    public static func isResolvable(_ address: DeviceAddress) -> Bool {
        address.type.isRandom && address.address.littleEndianBytes[5] & 0xC0 == 0x40
    }

    /// Whether `irk` generated `address`. Never throws: a wrong-length IRK or a non-resolvable address is no match.
    public static func resolves(_ address: DeviceAddress, irk: [UInt8]) -> Bool {
        guard isResolvable(address), irk.count == 16 else { return false }
        let bytes = address.address.littleEndianBytes
        guard let hash = try? SecurityFunctions.ah(irk: irk, prand: Array(bytes[3..<6])) else { return false }
        return hash == Array(bytes[0..<3])
    }

    /// A fresh address for `irk` (16 octets, little-endian).
    public static func make(irk: [UInt8]) throws(SecurityToolboxError) -> BluetoothAddress {
        try SecurityToolboxError.check(irk, 16, "IRK")
        var prand: [UInt8]
        repeat {
            prand = SecureRandom.bytes(3)
            prand[2] = prand[2] & 0x3F | 0x40
        } while !hasBothBitValues(prand)
        let hash = try SecurityFunctions.ah(irk: irk, prand: prand)
        return BluetoothAddress(littleEndian: hash + prand)
    }

    /// The 22 random bits of prand may be neither all 0 nor all 1 (Vol 6 Part B 1.3.2.2).
    private static func hasBothBitValues(_ prand: [UInt8]) -> Bool {
        let allZero = prand[0] == 0 && prand[1] == 0 && prand[2] & 0x3F == 0
        let allOne = prand[0] == 0xFF && prand[1] == 0xFF && prand[2] & 0x3F == 0x3F
        return !allZero && !allOne
    }
}
