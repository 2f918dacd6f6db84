/// Data signing (Core Vol 3 Part H 2.4.5), as the ATT Signed Write Command carries it.
extension SecurityFunctions {
    /// The 12-octet Authentication Signature of `message` (the PDU before the signature) with
    /// `csrk` (little-endian) and `counter`: SignCounter (4 octets) then the 64 most significant
    /// bits of AES-CMAC(CSRK, message || SignCounter), everything least significant octet first.
    public static func signature(csrk: [UInt8], message: [UInt8], counter: UInt32) throws(SecurityToolboxError) -> [UInt8] {
        try SecurityToolboxError.check(csrk, 16, "CSRK")
        let counterBytes = (0..<4).map { UInt8(truncatingIfNeeded: counter >> ($0 * 8)) }
        let mac = try cmac(key: csrk.reversed(), message: (message + counterBytes).reversed())
        let littleEndian = Array(mac.reversed())
        return counterBytes + littleEndian[8..<16]
    }

    /// Checks a signed PDU: `signed` is the whole PDU including its 12-octet signature. Returns the
    /// SignCounter when the signature is right, nil otherwise (or for a PDU too short to carry one).
    public static func verifiedSignCounter(csrk: [UInt8], signed: [UInt8]) -> UInt32? {
        guard signed.count >= 12, csrk.count == 16 else { return nil }
        let message = Array(signed.dropLast(12))
        let carried = Array(signed.suffix(12))
        let counter = carried[0..<4].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        guard let expected = try? signature(csrk: csrk, message: message, counter: counter), expected == carried else { return nil }
        return counter
    }
}
