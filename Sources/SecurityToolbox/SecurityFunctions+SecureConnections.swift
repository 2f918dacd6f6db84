import BLECore

/// The LE Secure Connections functions, all AES-CMAC over values most significant octet first.
/// The byte strings are built with explicit types: Swift 6.2 (Debian's, which builds the arm64
/// package) gives up on, or finds `reversed()` ambiguous in, the same chains written inline.
extension SecurityFunctions {
    /// f5's SALT and key ID "btle" (2.2.7), most significant octet first.
    private static let f5Salt: [UInt8] = [
        0x6C, 0x88, 0x83, 0x91, 0xAA, 0xF5, 0xA5, 0x38, 0x60, 0x37, 0x0B, 0xDB, 0x5A, 0x60, 0x83, 0xBE,
    ]
    private static let f5KeyID: [UInt8] = Array("btle".utf8)

    /// LE SC confirm f4 (2.2.6): u,v 32 (public key X), x 16, z one octet -> 16.
    public static func f4(u: [UInt8], v: [UInt8], x: [UInt8], z: UInt8) throws(SecurityToolboxError) -> [UInt8] {
        try SecurityToolboxError.check(u, 32, "f4 u (public key X)")
        try SecurityToolboxError.check(v, 32, "f4 v (public key X)")
        try SecurityToolboxError.check(x, 16, "f4 x (nonce)")
        let message: [UInt8] = (u.reversed() as [UInt8]) + (v.reversed() as [UInt8]) + [z]
        return try cmac(key: x.reversed(), message: message).reversed()
    }

    /// LE SC key generation f5 (2.2.7): w = DHKey 32, n1,n2 16, a1/a2 the initiating/responding device addresses -> (macKey, ltk) 16 each.
    public static func f5(
        w: [UInt8], n1: [UInt8], n2: [UInt8], a1: DeviceAddress, a2: DeviceAddress
    ) throws(SecurityToolboxError) -> (macKey: [UInt8], ltk: [UInt8]) {
        try SecurityToolboxError.check(w, 32, "f5 w (DHKey)")
        try SecurityToolboxError.check(n1, 16, "f5 n1 (nonce)")
        try SecurityToolboxError.check(n2, 16, "f5 n2 (nonce)")
        let t = try cmac(key: f5Salt, message: w.reversed())
        // Counter || keyID || N1 || N2 || A1 || A2 || Length (256 bits of key material in all).
        let nonces: [UInt8] = (n1.reversed() as [UInt8]) + (n2.reversed() as [UInt8])
        let body: [UInt8] = f5KeyID + nonces + addressValue(a1) + addressValue(a2) + [0x01, 0x00]
        let macKey = try cmac(key: t, message: [0] + body)
        let ltk = try cmac(key: t, message: [1] + body)
        return (macKey.reversed(), ltk.reversed())
    }

    /// LE SC check value f6 (2.2.8): w 16 (MacKey), n1,n2,r 16, ioCap 3 octets, a1/a2 -> 16.
    /// `ioCap` is the spec's IOcap value least significant first, as everything here:
    /// [IO Capability, OOB data flag, AuthReq], the three Pairing Request/Response fields in PDU order.
    public static func f6(
        w: [UInt8], n1: [UInt8], n2: [UInt8], r: [UInt8], ioCap: [UInt8], a1: DeviceAddress, a2: DeviceAddress
    ) throws(SecurityToolboxError) -> [UInt8] {
        try SecurityToolboxError.check(w, 16, "f6 w (MacKey)")
        try SecurityToolboxError.check(n1, 16, "f6 n1 (nonce)")
        try SecurityToolboxError.check(n2, 16, "f6 n2 (nonce)")
        try SecurityToolboxError.check(r, 16, "f6 r")
        try SecurityToolboxError.check(ioCap, 3, "f6 ioCap (IO capability, OOB flag, AuthReq)")
        let nonces: [UInt8] = (n1.reversed() as [UInt8]) + (n2.reversed() as [UInt8]) + (r.reversed() as [UInt8])
        let message: [UInt8] = nonces + (ioCap.reversed() as [UInt8]) + addressValue(a1) + addressValue(a2)
        return try cmac(key: w.reversed(), message: message).reversed()
    }

    /// Numeric comparison value g2 (2.2.9): the 6-digit number = result mod 1_000_000.
    /// u, v are the public keys' X (32), x, y the nonces Na, Nb (16).
    public static func g2(u: [UInt8], v: [UInt8], x: [UInt8], y: [UInt8]) throws(SecurityToolboxError) -> UInt32 {
        try SecurityToolboxError.check(u, 32, "g2 u (public key X)")
        try SecurityToolboxError.check(v, 32, "g2 v (public key X)")
        try SecurityToolboxError.check(x, 16, "g2 x (nonce)")
        try SecurityToolboxError.check(y, 16, "g2 y (nonce)")
        let message: [UInt8] = (u.reversed() as [UInt8]) + (v.reversed() as [UInt8]) + (y.reversed() as [UInt8])
        let mac = try cmac(key: x.reversed(), message: message)
        // g2 is the CMAC mod 2^32: its four least significant (last) octets.
        let value = mac.suffix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        return value % 1_000_000
    }
}
