import SecurityToolbox
import Testing

@Suite struct SecureRandomTests {
    @Test func givesTheCountAskedFor() {
        #expect(SecureRandom.bytes(16).count == 16)
        #expect(SecureRandom.bytes(0).isEmpty)
        #expect(SecureRandom.bytes(-1).isEmpty)
        // 2^-128 chance of a false failure.
        #expect(SecureRandom.bytes(16) != SecureRandom.bytes(16))
    }
}
