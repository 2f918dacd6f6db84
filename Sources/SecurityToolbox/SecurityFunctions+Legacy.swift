import BLECore

/// The LE legacy pairing and address functions, all built on e.
extension SecurityFunctions {
    /// Legacy confirm value c1 (2.2.3). preq/pres are the 7-octet Pairing Request/Response PDUs as sent (opcode first).
    /// `k` is the TK, `r` Mrand or Srand; the result is Mconfirm or Sconfirm.
    public static func c1(
        k: [UInt8], r: [UInt8], preq: [UInt8], pres: [UInt8], initiator: DeviceAddress, responder: DeviceAddress
    ) throws(SecurityToolboxError) -> [UInt8] {
        try SecurityToolboxError.check(k, 16, "c1 k (TK)")
        try SecurityToolboxError.check(r, 16, "c1 r")
        try SecurityToolboxError.check(preq, 7, "c1 preq (Pairing Request PDU)")
        try SecurityToolboxError.check(pres, 7, "c1 pres (Pairing Response PDU)")
        // p1 = pres || preq || rat' || iat' and p2 = padding || ia || ra, most significant first;
        // written least significant first they are the PDUs and addresses in the order below.
        let p1: [UInt8] = [initiator.type.isRandom ? 1 : 0, responder.type.isRandom ? 1 : 0] + preq + pres
        let p2 = responder.address.littleEndianBytes + initiator.address.littleEndianBytes + [0, 0, 0, 0]
        let first = try e(key: k, plaintext: xor(r, p1))
        return try e(key: k, plaintext: xor(first, p2))
    }

    /// Legacy STK s1 (2.2.4): `k` the TK, `r1` Srand, `r2` Mrand.
    public static func s1(k: [UInt8], r1: [UInt8], r2: [UInt8]) throws(SecurityToolboxError) -> [UInt8] {
        try SecurityToolboxError.check(k, 16, "s1 k (TK)")
        try SecurityToolboxError.check(r1, 16, "s1 r1")
        try SecurityToolboxError.check(r2, 16, "s1 r2")
        // r' = r1' || r2' (the low 64 bits of each, r1' on top): least significant first, r2' comes first.
        return try e(key: k, plaintext: Array(r2.prefix(8) + r1.prefix(8)))
    }

    /// Random address hash ah (2.2.2): irk 16, prand 3 octets -> 3 octets.
    public static func ah(irk: [UInt8], prand: [UInt8]) throws(SecurityToolboxError) -> [UInt8] {
        try SecurityToolboxError.check(irk, 16, "ah irk")
        try SecurityToolboxError.check(prand, 3, "ah prand")
        // r' = padding || r; the hash is e's result mod 2^24, its three least significant octets.
        return try Array(e(key: irk, plaintext: prand + [UInt8](repeating: 0, count: 13)).prefix(3))
    }

    /// Lengths are checked by the callers.
    private static func xor(_ a: [UInt8], _ b: [UInt8]) -> [UInt8] {
        zip(a, b).map { $0 ^ $1 }
    }
}
