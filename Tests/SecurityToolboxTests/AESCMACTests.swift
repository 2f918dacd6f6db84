import BLECore
import SecurityToolbox
import Testing

/// RFC 4493 section 4 test vectors (AES-128 key 2b7e1516 28aed2a6 abf71588 09cf4f3c).
@Suite struct AESCMACTests {
    static let key = SampleData.hex("2b7e151628aed2a6abf7158809cf4f3c")
    static let message64 = SampleData.hex("""
        6bc1bee22e409f96e93d7e117393172a ae2d8a571e03ac9c9eb76fac45af8e51
        30c81c46a35ce411e5fbc1191a0a52ef f69f2445df4f9b17ad2b417be66c3710
        """)

    @Test(arguments: [
        (0, "bb1d6929e95937287fa37d129b756746"),
        (16, "070a16b46b4d4144f79bdd9dd04a287c"),
        (40, "dfa66747de9ae63030ca32611497c827"),
        (64, "51f0bebf7e3b9d92fc49741779363cfe"),
    ])
    func rfc4493Vector(length: Int, expected: String) throws {
        let mac = try AESCMAC.mac(key: Self.key, message: Array(Self.message64.prefix(length)))
        #expect(mac.hexString == expected)
    }

    @Test func rejectsKeysThatAreNot128Bits() {
        #expect(throws: AESCMACError.invalidKeyLength(15)) {
            try AESCMAC.mac(key: [UInt8](repeating: 0, count: 15), message: [])
        }
        #expect(throws: AESCMACError.invalidKeyLength(32)) {
            try AESCMAC.mac(key: [UInt8](repeating: 0, count: 32), message: [])
        }
        #expect(AESCMACError.invalidKeyLength(15).description.contains("exactly 16 bytes"))
    }
}
