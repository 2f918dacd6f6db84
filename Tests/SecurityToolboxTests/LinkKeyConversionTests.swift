import BLECore
import SecurityToolbox
import Testing

/// h6 and h7 against Vol 3 Part H Appendix D, including its LTK ↔ link key derivation samples.
@Suite struct LinkKeyConversionTests {
    /// h7's SALT values "tmp1" and "tmp2" as the spec prints them, reversed into wire order.
    static let tmp1Salt = SampleData.wire("00000000 00000000 00000000 746D7031")
    static let tmp2Salt = SampleData.wire("00000000 00000000 00000000 746D7032")

    @Test func h6SpecSample() throws {
        let key = try SecurityFunctions.h6(w: SampleData.wire("ec0234a3 57c8ad05 341010a6 0a397d9b"), keyID: Array("lebr".utf8))
        #expect(key == SampleData.wire("2d9ae102 e76dc91c e8d3a9e2 80b16399"))
        #expect(Array("lebr".utf8) == SampleData.hex("6c656272"))
    }

    @Test func h7SpecSample() throws {
        let key = try SecurityFunctions.h7(salt: Self.tmp1Salt, w: SampleData.wire("ec0234a3 57c8ad05 341010a6 0a397d9b"))
        #expect(key == SampleData.wire("fb173597 c6a3c0ec d2998c2a 75a57011"))
        #expect(Self.tmp1Salt == Array("tmp1".utf8.reversed()) + [UInt8](repeating: 0, count: 12))
    }

    /// LTK → link key: ILK = h6(LTK, "tmp1") without CT2, h7(SALT "tmp1", LTK) with it; then h6(ILK, "lebr").
    @Test(arguments: [(false, "bc1ca4ef 633fc1bd 0d8230af ee388fb0"), (true, "287ad379 dca40253 0a39f1f4 3047b835")])
    func linkKeyFromLTK(ct2: Bool, expected: String) throws {
        let ltk = SampleData.wire("368df9bc e3264b58 bd066c33 334fbf64")
        let ilk = ct2 ? try SecurityFunctions.h7(salt: Self.tmp1Salt, w: ltk) : try SecurityFunctions.h6(w: ltk, keyID: Array("tmp1".utf8))
        #expect(try SecurityFunctions.h6(w: ilk, keyID: Array("lebr".utf8)) == SampleData.wire(expected))
    }

    /// Link key → LTK: ILTK = h6(LK, "tmp2") or h7(SALT "tmp2", LK); then h6(ILTK, "brle").
    @Test(arguments: [(false, "a813fb72 f1a3dfa1 8a2c9a43 f10d0a30"), (true, "e85e09eb 5eccb3e2 69418a13 3211bc79")])
    func ltkFromLinkKey(ct2: Bool, expected: String) throws {
        let linkKey = SampleData.wire("05040302 01000908 07060504 03020100")
        let iltk = ct2 ? try SecurityFunctions.h7(salt: Self.tmp2Salt, w: linkKey) : try SecurityFunctions.h6(w: linkKey, keyID: Array("tmp2".utf8))
        #expect(try SecurityFunctions.h6(w: iltk, keyID: Array("brle".utf8)) == SampleData.wire(expected))
    }

    /// Bumble's results for random inputs, in wire order; Bumble takes h7's SALT most significant
    /// octet first, so that one input is reversed here.
    @Test func matchesBumbleOnRandomInputs() throws {
        let h6 = try SecurityFunctions.h6(w: SampleData.hex("ce0f752a55da69b2c651cd482ff950e7"), keyID: Array("brle".utf8))
        #expect(h6.hexString == "8ae1ff93f26e7223e5361e16ce28fef2")
        let h7 = try SecurityFunctions.h7(
            salt: SampleData.wire("cb4cad6e3a69daf90f528ccfe04fab86"), w: SampleData.hex("bb712980f405e31f9a47e5ad1d7ccbb3"))
        #expect(h7.hexString == "b51a6981fec4e37eb491229f81106faa")
    }
}
