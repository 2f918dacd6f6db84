import BLECore
import SecurityToolbox
import Testing

/// Every input of the wrong length throws `.invalidLength` naming it; none traps.
@Suite struct InputLengthTests {
    static let lengths = [0, 1, 2, 3, 4, 6, 7, 8, 15, 16, 17, 31, 32, 33, 64, 1024]
    static let device = DeviceAddress(BluetoothAddress("C0:11:22:33:44:55")!, type: .randomDevice)

    /// Calls `body` with every length but `expected` in the input under test.
    private func expectRefused(_ what: String, expected: Int, _ body: ([UInt8]) throws -> Void) {
        for count in Self.lengths where count != expected {
            #expect(throws: SecurityToolboxError.invalidLength(what: what, expected: expected, actual: count)) {
                try body([UInt8](repeating: 0xA5, count: count))
            }
        }
    }

    private func bytes(_ count: Int) -> [UInt8] { [UInt8](repeating: 0x5A, count: count) }

    @Test func e() {
        expectRefused("e key", expected: 16) { _ = try SecurityFunctions.e(key: $0, plaintext: bytes(16)) }
        expectRefused("e plaintext", expected: 16) { _ = try SecurityFunctions.e(key: bytes(16), plaintext: $0) }
    }

    @Test func legacy() {
        func c1(k: [UInt8]? = nil, r: [UInt8]? = nil, preq: [UInt8]? = nil, pres: [UInt8]? = nil) throws(SecurityToolboxError) {
            _ = try SecurityFunctions.c1(k: k ?? bytes(16), r: r ?? bytes(16), preq: preq ?? bytes(7), pres: pres ?? bytes(7),
                                         initiator: Self.device, responder: Self.device)
        }
        expectRefused("c1 k (TK)", expected: 16) { try c1(k: $0) }
        expectRefused("c1 r", expected: 16) { try c1(r: $0) }
        expectRefused("c1 preq (Pairing Request PDU)", expected: 7) { try c1(preq: $0) }
        expectRefused("c1 pres (Pairing Response PDU)", expected: 7) { try c1(pres: $0) }
        expectRefused("s1 k (TK)", expected: 16) { _ = try SecurityFunctions.s1(k: $0, r1: bytes(16), r2: bytes(16)) }
        expectRefused("s1 r1", expected: 16) { _ = try SecurityFunctions.s1(k: bytes(16), r1: $0, r2: bytes(16)) }
        expectRefused("s1 r2", expected: 16) { _ = try SecurityFunctions.s1(k: bytes(16), r1: bytes(16), r2: $0) }
        expectRefused("ah irk", expected: 16) { _ = try SecurityFunctions.ah(irk: $0, prand: bytes(3)) }
        expectRefused("ah prand", expected: 3) { _ = try SecurityFunctions.ah(irk: bytes(16), prand: $0) }
    }

    @Test func f4AndG2() {
        expectRefused("f4 u (public key X)", expected: 32) { _ = try SecurityFunctions.f4(u: $0, v: bytes(32), x: bytes(16), z: 0) }
        expectRefused("f4 v (public key X)", expected: 32) { _ = try SecurityFunctions.f4(u: bytes(32), v: $0, x: bytes(16), z: 0) }
        expectRefused("f4 x (nonce)", expected: 16) { _ = try SecurityFunctions.f4(u: bytes(32), v: bytes(32), x: $0, z: 0) }
        expectRefused("g2 u (public key X)", expected: 32) { _ = try SecurityFunctions.g2(u: $0, v: bytes(32), x: bytes(16), y: bytes(16)) }
        expectRefused("g2 v (public key X)", expected: 32) { _ = try SecurityFunctions.g2(u: bytes(32), v: $0, x: bytes(16), y: bytes(16)) }
        expectRefused("g2 x (nonce)", expected: 16) { _ = try SecurityFunctions.g2(u: bytes(32), v: bytes(32), x: $0, y: bytes(16)) }
        expectRefused("g2 y (nonce)", expected: 16) { _ = try SecurityFunctions.g2(u: bytes(32), v: bytes(32), x: bytes(16), y: $0) }
    }

    @Test func f5AndF6() {
        let a = Self.device
        expectRefused("f5 w (DHKey)", expected: 32) { _ = try SecurityFunctions.f5(w: $0, n1: bytes(16), n2: bytes(16), a1: a, a2: a) }
        expectRefused("f5 n1 (nonce)", expected: 16) { _ = try SecurityFunctions.f5(w: bytes(32), n1: $0, n2: bytes(16), a1: a, a2: a) }
        expectRefused("f5 n2 (nonce)", expected: 16) { _ = try SecurityFunctions.f5(w: bytes(32), n1: bytes(16), n2: $0, a1: a, a2: a) }
        func f6(w: [UInt8]? = nil, n1: [UInt8]? = nil, n2: [UInt8]? = nil, r: [UInt8]? = nil, ioCap: [UInt8]? = nil) throws(SecurityToolboxError) {
            _ = try SecurityFunctions.f6(w: w ?? bytes(16), n1: n1 ?? bytes(16), n2: n2 ?? bytes(16), r: r ?? bytes(16),
                                         ioCap: ioCap ?? bytes(3), a1: a, a2: a)
        }
        expectRefused("f6 w (MacKey)", expected: 16) { try f6(w: $0) }
        expectRefused("f6 n1 (nonce)", expected: 16) { try f6(n1: $0) }
        expectRefused("f6 n2 (nonce)", expected: 16) { try f6(n2: $0) }
        expectRefused("f6 r", expected: 16) { try f6(r: $0) }
        expectRefused("f6 ioCap (IO capability, OOB flag, AuthReq)", expected: 3) { try f6(ioCap: $0) }
    }

    @Test func h6AndH7() {
        expectRefused("h6 w (key)", expected: 16) { _ = try SecurityFunctions.h6(w: $0, keyID: Array("lebr".utf8)) }
        expectRefused("h6 keyID (4 ASCII characters)", expected: 4) { _ = try SecurityFunctions.h6(w: bytes(16), keyID: $0) }
        expectRefused("h7 salt", expected: 16) { _ = try SecurityFunctions.h7(salt: $0, w: bytes(16)) }
        expectRefused("h7 w (key)", expected: 16) { _ = try SecurityFunctions.h7(salt: bytes(16), w: $0) }
    }

    @Test func messagesSayWhatToPass() {
        let error = SecurityToolboxError.invalidLength(what: "f4 x (nonce)", expected: 16, actual: 15)
        #expect(error.description == "f4 x (nonce) has 15 octet(s); pass exactly 16 octets")
        #expect(SecurityToolboxError.publicKeyNotOnCurve.description.contains("abort the pairing"))
        #expect(SecurityToolboxError.reflectedPublicKey.description.contains("abort the pairing"))
    }
}
