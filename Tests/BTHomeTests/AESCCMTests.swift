import BTHome
import Testing
import TestSupport

/// RFC 3610 section 8's packet vectors (8-octet tag, 8-octet header), plus vectors made once with
/// Python `cryptography`'s AESCCM (an independent implementation) for the 4- and 16-octet tags.
@Suite struct AESCCMTests {
    static let key = hex("C0C1C2C3C4C5C6C7C8C9CACBCCCDCECF")

    @Test(arguments: [
        ("00000003020100A0A1A2A3A4A5", 31, "588c979a61c663d2f066d0c2c0f989806d5f6b61dac38417e8d12cfdf926e0"),
        ("00000004030201A0A1A2A3A4A5", 32, "72c91a36e135f8cf291ca894085c87e3cc15c439c9e43a3ba091d56e10400916"),
        ("00000005040302A0A1A2A3A4A5", 33, "51b1e5f44a197d1da46b0f8e2d282ae871e838bb64da8596574adaa76fbd9fb0c5"),
    ])
    func rfc3610PacketVector(nonce: String, length: Int, expected: String) throws {
        let packet = (0..<length).map { UInt8($0) }
        let ccm = try AESCCM(key: Self.key, tagLength: 8)
        let sealed = try ccm.seal(Array(packet[8...]), nonce: hex(nonce), authenticating: Array(packet[..<8]))
        #expect(sealed.hexString == expected)
        #expect(try ccm.open(sealed, nonce: hex(nonce), authenticating: Array(packet[..<8])) == Array(packet[8...]))
    }

    @Test(arguments: [
        (4, "50849f9269ce6bdae87ec8dad8e1919865576369d2cb8ce87c15861dc27013903e03b709c81a4dac9b05f65f"),
        (16, "50849f9269ce6bdae87ec8dad8e1919865576369d2cb8ce87c15861dc27013903e03b709c81a4dac0e51305a87036b2a1754a0f9e73530bd"),
    ])
    func otherTagLengthsAsPythonCryptography(tagLength: Int, expected: String) throws {
        let ccm = try AESCCM(key: Self.key, tagLength: tagLength)
        let sealed = try ccm.seal((0..<40).map { UInt8($0) }, nonce: hex("00000003020100A0A1A2A3A4A5"))
        #expect(sealed.hexString == expected)
    }

    @Test func headerOnlyAsPythonCryptography() throws {
        let ccm = try AESCCM(key: Self.key, tagLength: 16)
        let sealed = try ccm.seal([], nonce: hex("00000003020100A0A1A2A3A4A5"), authenticating: (0..<20).map { UInt8($0) })
        #expect(sealed.hexString == "944f040a2f5e807ce3de5a241b26efce")
    }

    @Test func aWrongTagKeyOrNonceIsRefused() throws {
        let ccm = try AESCCM(key: Self.key)
        let nonce = hex("00000003020100A0A1A2A3A4A5")
        let sealed = try ccm.seal([1, 2, 3, 4, 5], nonce: nonce)
        var altered = sealed
        altered[altered.count - 1] ^= 0x01
        #expect(throws: AESCCMError.authenticationFailed) { try ccm.open(altered, nonce: nonce) }
        var flipped = sealed
        flipped[0] ^= 0x80
        #expect(throws: AESCCMError.authenticationFailed) { try ccm.open(flipped, nonce: nonce) }
        let other = try AESCCM(key: [UInt8](repeating: 0x11, count: 16))
        #expect(throws: AESCCMError.authenticationFailed) { try other.open(sealed, nonce: nonce) }
        #expect(throws: AESCCMError.authenticationFailed) { try ccm.open(sealed, nonce: hex("01000003020100A0A1A2A3A4A5")) }
        #expect(throws: AESCCMError.authenticationFailed) { try ccm.open([1, 2], nonce: nonce) }
    }

    @Test func invalidParametersAreErrors() {
        #expect(throws: AESCCMError.invalidKeyLength(15)) { try AESCCM(key: [UInt8](repeating: 0, count: 15)) }
        #expect(throws: AESCCMError.invalidTagLength(5)) { try AESCCM(key: Self.key, tagLength: 5) }
        #expect(throws: AESCCMError.invalidTagLength(18)) { try AESCCM(key: Self.key, tagLength: 18) }
        #expect(throws: AESCCMError.invalidNonceLength(14)) { try AESCCM(key: Self.key).seal([], nonce: [UInt8](repeating: 0, count: 14)) }
        // L = 2 (a 13-octet nonce) counts up to 65535 octets.
        #expect(throws: AESCCMError.messageTooLong(65536)) {
            try AESCCM(key: Self.key).seal([UInt8](repeating: 0, count: 65536), nonce: [UInt8](repeating: 0, count: 13))
        }
    }
}
