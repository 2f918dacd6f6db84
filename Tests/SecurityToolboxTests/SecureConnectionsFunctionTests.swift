import BLECore
import SecurityToolbox
import Testing

/// f4, f5, f6 and g2 against the spec's samples (Vol 3 Part H Appendix D). They share the
/// P-256 sample keys and nonces below, printed most significant octet first.
@Suite struct SecureConnectionsFunctionTests {
    static let u = SampleData.wire("20b003d2 f297be2c 5e2c83a7 e9f9a5b9 eff49111 acf4fddb cc030148 0e359de6")
    static let v = SampleData.wire("55188b3d 32f6bb9a 900afcfb eed4e72a 59cb9ac2 f19d7cfb 6b4fdd49 f47fc5fd")
    static let dhKey = SampleData.wire("ec0234a3 57c8ad05 341010a6 0a397d9b 99796b13 b4f866f1 868d34f3 73bfa698")
    static let n1 = SampleData.wire("d5cb8454 d177733e ffffb2ec 712baeab")
    static let n2 = SampleData.wire("a6e8e7cc 25a75f6e 216583f7 ff3dc4cf")
    /// A1 and A2 print the type octet (00, public) above the address.
    static let a1 = SampleData.address("561237 37bfce", .publicDevice)
    static let a2 = SampleData.address("a71370 2dcfc1", .publicDevice)
    static let macKey = SampleData.wire("2965f176 a1084a02 fd3f6a20 ce636e20")

    @Test func f4SpecSample() throws {
        let confirm = try SecurityFunctions.f4(u: Self.u, v: Self.v, x: Self.n1, z: 0)
        #expect(confirm == SampleData.wire("f2c916f1 07a9bd1c f1eda1be a974872d"))
    }

    @Test func f5SpecSample() throws {
        let keys = try SecurityFunctions.f5(w: Self.dhKey, n1: Self.n1, n2: Self.n2, a1: Self.a1, a2: Self.a2)
        #expect(keys.macKey == Self.macKey)
        #expect(keys.ltk == SampleData.wire("69867911 69d7cd23 980522b5 94750a38"))
    }

    @Test func f5TreatsIdentityTypesAsTheirBaseType() throws {
        let identity = SampleData.address("561237 37bfce", .publicIdentity)
        let keys = try SecurityFunctions.f5(w: Self.dhKey, n1: Self.n1, n2: Self.n2, a1: identity, a2: Self.a2)
        #expect(keys.ltk == SampleData.wire("69867911 69d7cd23 980522b5 94750a38"))
    }

    /// IOcap 010102 is AuthReq 01, OOB flag 01, IO capability 02; in wire order [02, 01, 01].
    @Test func f6SpecSample() throws {
        let ioCap = SampleData.wire("010102")
        #expect(ioCap == [0x02, 0x01, 0x01])
        let check = try SecurityFunctions.f6(
            w: Self.macKey, n1: Self.n1, n2: Self.n2, r: SampleData.wire("12a3343b b453bb54 08da42d2 0c2d0fc8"),
            ioCap: ioCap, a1: Self.a1, a2: Self.a2)
        #expect(check == SampleData.wire("e3c47398 9cd0e8c5 d26c0b09 da958f61"))
    }

    /// The spec's g2 is 0x2f9ed5ba = 798938554; the user compares its last six digits.
    @Test func g2SpecSample() throws {
        let number = try SecurityFunctions.g2(u: Self.u, v: Self.v, x: Self.n1, y: Self.n2)
        #expect(number == 0x2f9e_d5ba % 1_000_000)
        #expect(number == 938_554)
    }

    /// Bumble's results for random inputs in wire order, covering random address types and z != 0.
    @Test func matchesBumbleOnRandomInputs() throws {
        let f4 = try SecurityFunctions.f4(
            u: SampleData.hex("b332ac718d4d568d67b8e2ecede2a3336f8ad5fe6189725efbfc4390aae3fea0"),
            v: SampleData.hex("bf9bf5fb057db7e6091f22afbf582c88e85c159ab7cd20b9017e7f4e0751bb19"),
            x: SampleData.hex("37193680588b17452302ac805de612fd"), z: 0x80)
        #expect(f4.hexString == "edc790b5fd45b14ec268f33c5df7dbf9")

        let f5 = try SecurityFunctions.f5(
            w: SampleData.hex("68560ebdc149fe070cef26af1582818b3e4c84a4e8f5766baeedd4900f71344b"),
            n1: SampleData.hex("894267991d4264574e03808c1de572ce"), n2: SampleData.hex("ed6a2bb14eda8b25d65ebceb101f5890"),
            a1: Self.wireAddress("3d24ed549d4b", .randomDevice), a2: Self.wireAddress("8b788947d8c6", .randomDevice))
        #expect(f5.macKey.hexString == "f4f1ca1d69c71a6de2126aef60acfa4e")
        #expect(f5.ltk.hexString == "bfdc8474ceac05ca83c2f3408a8a5d9b")

        let f6 = try SecurityFunctions.f6(
            w: SampleData.hex("00fa2ad019ec07d8057bd562c8078f0a"), n1: SampleData.hex("dc38c31d2c662cfdfeebe0b44e664816"),
            n2: SampleData.hex("f848d779ec2f18d27c358485f01f6e18"), r: SampleData.hex("b83d67bed8bdee7c1e271b1af5f644c2"),
            ioCap: SampleData.hex("9a0e4c"),
            a1: Self.wireAddress("8860c6d3714b", .publicDevice), a2: Self.wireAddress("15bcbeb8c25c", .randomDevice))
        #expect(f6.hexString == "d33eeafd90a9546cb2d802563e5dfb76")

        let g2 = try SecurityFunctions.g2(
            u: SampleData.hex("560bcd4480f5625d4415c824f901b9595eedea47c8a584f5d643f9fa7669a85b"),
            v: SampleData.hex("92516c8eb330d735c6f15abad3b8c5bbeff966a1a01bebfd9d512cf1f437c016"),
            x: SampleData.hex("a98522d4e61ec6ef8b4a127bfca1edc9"), y: SampleData.hex("c5db3060872fb19a4010cb96e830a5fb"))
        #expect(g2 == 30_501)
    }

    private static func wireAddress(_ hex: String, _ type: AddressType) -> DeviceAddress {
        DeviceAddress(BluetoothAddress(littleEndian: SampleData.hex(hex)), type: type)
    }
}
