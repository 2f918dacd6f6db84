import BLECore
import SecurityToolbox
import Testing

/// P-256 against the spec's sample data: the debug key (Vol 3 Part H 2.3.5.6.1) is device A of the
/// sample, device B is the second key below; values printed most significant octet first.
@Suite struct SecureConnectionsKeyPairTests {
    static let privateA = SampleData.wire("3f49f6d4 a3c55f38 74c9b3e3 d2103f50 4aff607b eb40b799 5899b8a6 cd3c1abd")
    static let publicAX = SampleData.wire("20b003d2 f297be2c 5e2c83a7 e9f9a5b9 eff49111 acf4fddb cc030148 0e359de6")
    static let publicAY = SampleData.wire("dc809c49 652aeb6d 63329abf 5a52155c 766345c2 8fed3024 741c8ed0 1589d28b")
    static let privateB = SampleData.wire("55188b3d 32f6bb9a 900afcfb eed4e72a 59cb9ac2 f19d7cfb 6b4fdd49 f47fc5fd")
    static let publicBX = SampleData.wire("1ea1f0f0 1faf1d96 09592284 f19e4c00 47b58afd 8615a69f 559077b2 2faaa190")
    static let publicBY = SampleData.wire("4c55f33e 429dad37 7356703a 9ab85160 472d1130 e28e3676 5f89aff9 15b1214a")
    static let dhKey = SampleData.wire("ec0234a3 57c8ad05 341010a6 0a397d9b 99796b13 b4f866f1 868d34f3 73bfa698")

    @Test func debugKeyPairIsTheSpecs() throws {
        let debug = SecureConnectionsKeyPair.debug()
        #expect(debug.publicKeyX == Self.publicAX)
        #expect(debug.publicKeyY == Self.publicAY)
        #expect(SecureConnectionsKeyPair.isDebugPublicKey(x: Self.publicAX, y: Self.publicAY))
        #expect(!SecureConnectionsKeyPair.isDebugPublicKey(x: Self.publicBX, y: Self.publicBY))
        #expect(!SecureConnectionsKeyPair.isDebugPublicKey(x: [], y: []))
    }

    @Test func sampleKeysAgreeOnTheSpecsDHKey() throws {
        let a = SecureConnectionsKeyPair.debug()
        let b = try SecureConnectionsKeyPair(privateKeyLittleEndian: Self.privateB)
        #expect(b.publicKeyX == Self.publicBX)
        #expect(b.publicKeyY == Self.publicBY)
        #expect(try a.dhKey(peerX: Self.publicBX, peerY: Self.publicBY) == Self.dhKey)
        #expect(try b.dhKey(peerX: Self.publicAX, peerY: Self.publicAY) == Self.dhKey)
    }

    @Test func freshKeyPairsAgree() throws {
        let a = SecureConnectionsKeyPair()
        let b = SecureConnectionsKeyPair()
        #expect(a.publicKeyX != b.publicKeyX)
        #expect(a.publicKeyX.count == 32 && a.publicKeyY.count == 32)
        let ab = try a.dhKey(peerX: b.publicKeyX, peerY: b.publicKeyY)
        #expect(ab.count == 32)
        #expect(try b.dhKey(peerX: a.publicKeyX, peerY: a.publicKeyY) == ab)
    }

    /// (0, 0) and (1, 1) as in Bumble's tests, and the sample key B with its Y changed by one bit.
    @Test func refusesPointsNotOnTheCurve() {
        let ours = SecureConnectionsKeyPair()
        var bentY = Self.publicBY
        bentY[0] ^= 0x01
        let one = [1] + [UInt8](repeating: 0, count: 31)
        for (x, y) in [([UInt8](repeating: 0, count: 32), [UInt8](repeating: 0, count: 32)), (one, one), (Self.publicBX, bentY)] {
            #expect(throws: SecurityToolboxError.publicKeyNotOnCurve) { try ours.dhKey(peerX: x, peerY: y) }
        }
    }

    /// Our own key sent back, or its negation (same X, so the same DHKey), is a reflection.
    @Test func refusesOurOwnPublicKeyReflected() {
        let ours = SecureConnectionsKeyPair.debug()
        #expect(throws: SecurityToolboxError.reflectedPublicKey) {
            try ours.dhKey(peerX: ours.publicKeyX, peerY: ours.publicKeyY)
        }
        #expect(throws: SecurityToolboxError.reflectedPublicKey) {
            try ours.dhKey(peerX: ours.publicKeyX, peerY: Self.negated(ours.publicKeyY))
        }
    }

    @Test func refusesWrongLengthsWithoutTrapping() {
        let ours = SecureConnectionsKeyPair()
        #expect(throws: SecurityToolboxError.invalidLength(what: "peer public key X", expected: 32, actual: 31)) {
            try ours.dhKey(peerX: Array(Self.publicBX.prefix(31)), peerY: Self.publicBY)
        }
        #expect(throws: SecurityToolboxError.invalidLength(what: "peer public key Y", expected: 32, actual: 64)) {
            try ours.dhKey(peerX: Self.publicBX, peerY: Self.publicBY + Self.publicBY)
        }
        #expect(throws: SecurityToolboxError.invalidLength(what: "P-256 private key", expected: 32, actual: 0)) {
            try SecureConnectionsKeyPair(privateKeyLittleEndian: [])
        }
    }

    /// Zero and anything at or above the curve order are not private keys.
    @Test func refusesPrivateKeysOutOfRange() {
        let order = SampleData.wire("ffffffff 00000000 ffffffff ffffffff bce6faad a7179e84 f3b9cac2 fc632551")
        for key in [[UInt8](repeating: 0, count: 32), order, [UInt8](repeating: 0xFF, count: 32)] {
            #expect(throws: SecurityToolboxError.invalidPrivateKey) { try SecureConnectionsKeyPair(privateKeyLittleEndian: key) }
        }
    }

    @Test func descriptionsWithholdThePrivateKey() {
        let debug = SecureConnectionsKeyPair.debug()
        var dumped = ""
        dump(debug, to: &dumped)
        for text in [debug.description, String(reflecting: debug), dumped] {
            #expect(!text.contains(Self.privateA.hexString))
            #expect(!text.contains(Self.privateA.reversed().hexString))
        }
        #expect(debug.description.contains(Self.publicAX.reversed().hexString))
    }

    /// p − y, the Y of the negated point, little-endian.
    static func negated(_ y: [UInt8]) -> [UInt8] {
        let p = SampleData.wire("ffffffff 00000001 00000000 00000000 00000000 ffffffff ffffffff ffffffff")
        var result: [UInt8] = []
        var borrow = 0
        for (pByte, yByte) in zip(p, y) {
            let difference = Int(pByte) - Int(yByte) - borrow
            borrow = difference < 0 ? 1 : 0
            result.append(UInt8((difference + 256) % 256))
        }
        return result
    }
}
