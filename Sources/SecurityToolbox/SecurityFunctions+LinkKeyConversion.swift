/// Cross-transport key derivation between an LE LTK and a BR/EDR link key (Vol 3 Part H 2.2.10, 2.2.11).
extension SecurityFunctions {
    /// h6 (2.2.10): w 16 octets (a key, little-endian) -> 16.
    /// `keyID` is the 4 ASCII octets in the order the spec writes them, e.g. `Array("lebr".utf8)` for
    /// 0x6C656272: most significant first, NOT reversed like the other inputs, since it is text.
    public static func h6(w: [UInt8], keyID: [UInt8]) throws(SecurityToolboxError) -> [UInt8] {
        try SecurityToolboxError.check(w, 16, "h6 w (key)")
        try SecurityToolboxError.check(keyID, 4, "h6 keyID (4 ASCII characters)")
        return try cmac(key: w.reversed(), message: keyID).reversed()
    }

    /// h7 (2.2.11): salt and w 16 octets each, both little-endian like every other value -> 16.
    /// The spec's SALT 0x0000…746D7031 ("tmp1") is therefore `Array("tmp1".utf8.reversed()) + 12 zero octets`.
    public static func h7(salt: [UInt8], w: [UInt8]) throws(SecurityToolboxError) -> [UInt8] {
        try SecurityToolboxError.check(salt, 16, "h7 salt")
        try SecurityToolboxError.check(w, 16, "h7 w (key)")
        return try cmac(key: salt.reversed(), message: w.reversed()).reversed()
    }
}
