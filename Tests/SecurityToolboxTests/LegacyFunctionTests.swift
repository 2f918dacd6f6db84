import BLECore
import SecurityToolbox
import Testing

/// e, c1, s1 and ah against the spec's samples (Vol 3 Part H 2.2.3, 2.2.4 and Appendix D), printed most
/// significant octet first and reversed into wire order by `SampleData.wire`.
@Suite struct LegacyFunctionTests {
    /// e is plain AES-128 on reversed blocks: FIPS-197 Appendix C.1.
    @Test func eIsAES128OnLittleEndianBlocks() throws {
        let result = try SecurityFunctions.e(
            key: SampleData.wire("000102030405060708090a0b0c0d0e0f"),
            plaintext: SampleData.wire("00112233445566778899aabbccddeeff"))
        #expect(result == SampleData.wire("69c4e0d86a7b0430d8cdb78070b4c55a"))
    }

    @Test func c1SpecSample() throws {
        let confirm = try SecurityFunctions.c1(
            k: [UInt8](repeating: 0, count: 16),
            r: SampleData.wire("5783D52156AD6F0E6388274EC6702EE0"),
            preq: SampleData.wire("07071000000101"),
            pres: SampleData.wire("05000800000302"),
            initiator: SampleData.address("A1A2A3A4A5A6", .randomDevice),
            responder: SampleData.address("B1B2B3B4B5B6", .publicDevice))
        #expect(confirm == SampleData.wire("1e1e3fef878988ead2a74dc5bef13b86"))
        // The PDUs go in as sent: opcode (Pairing Request 0x01, Response 0x02) first.
        #expect(SampleData.wire("07071000000101").first == 0x01)
    }

    /// Resolved identities hash as their base address type (public 0, random 1).
    @Test func c1TreatsIdentityTypesAsTheirBaseType() throws {
        func confirm(_ initiator: AddressType, _ responder: AddressType) throws -> [UInt8] {
            try SecurityFunctions.c1(
                k: [UInt8](repeating: 0, count: 16), r: SampleData.wire("5783D52156AD6F0E6388274EC6702EE0"),
                preq: SampleData.wire("07071000000101"), pres: SampleData.wire("05000800000302"),
                initiator: SampleData.address("A1A2A3A4A5A6", initiator),
                responder: SampleData.address("B1B2B3B4B5B6", responder))
        }
        #expect(try confirm(.randomIdentity, .publicIdentity) == confirm(.randomDevice, .publicDevice))
        #expect(try confirm(.publicDevice, .publicDevice) != confirm(.randomDevice, .publicDevice))
    }

    @Test func s1SpecSample() throws {
        let stk = try SecurityFunctions.s1(
            k: [UInt8](repeating: 0, count: 16),
            r1: SampleData.wire("000F0E0D0C0B0A091122334455667788"),
            r2: SampleData.wire("010203040506070899AABBCCDDEEFF00"))
        #expect(stk == SampleData.wire("9a1fe1f0e8b0f49b5b4216ae796da062"))
    }

    /// The ah sample of Appendix D.
    @Test func ahSpecSample() throws {
        let hash = try SecurityFunctions.ah(irk: SampleData.wire("ec0234a357c8ad05341010a60a397d9b"), prand: SampleData.wire("708194"))
        #expect(hash == SampleData.wire("0dfbaa"))
    }

    /// Values Bumble's Python implementation computed for random inputs, given in wire order: they
    /// cover what the spec's samples leave out (a random responder, a nonzero TK).
    @Test func matchesBumbleOnRandomInputs() throws {
        let c1a = try SecurityFunctions.c1(
            k: SampleData.hex("29151d151a4e9068a8c3c830f1e47acf"), r: SampleData.hex("1a492e326d3dfdebe5863db90666d1e0"),
            preq: SampleData.hex("018a162855c595"), pres: SampleData.hex("02f79af6cce9a8"),
            initiator: DeviceAddress(BluetoothAddress(littleEndian: SampleData.hex("52b0186d9a81")), type: .publicDevice),
            responder: DeviceAddress(BluetoothAddress(littleEndian: SampleData.hex("046c5a9785ab")), type: .randomDevice))
        #expect(c1a.hexString == "cbe7ff5930de773a1cb9d86cd580dbc0")
        let c1b = try SecurityFunctions.c1(
            k: SampleData.hex("12b309e554bea6811d25b444cbc472a6"), r: SampleData.hex("4ec436918fce7741932be57cd4b5c302"),
            preq: SampleData.hex("01c2f5e87f5a49"), pres: SampleData.hex("025d1cef636027"),
            initiator: DeviceAddress(BluetoothAddress(littleEndian: SampleData.hex("b7a633abf1ac")), type: .randomDevice),
            responder: DeviceAddress(BluetoothAddress(littleEndian: SampleData.hex("eaeae4bd1c86")), type: .publicDevice))
        #expect(c1b.hexString == "1e551ad6a5985e876473e832c2f55f58")

        let s1 = try SecurityFunctions.s1(
            k: SampleData.hex("f9fb0df7773f3f498d09af5a053a4af0"), r1: SampleData.hex("942754dcd065bbf38d0395471fdb30b6"),
            r2: SampleData.hex("e27a49330b6cc53372ce52a563c86e64"))
        #expect(s1.hexString == "1d858dd65545d4004b75e8409e54266a")

        let ah = try SecurityFunctions.ah(irk: SampleData.hex("df79998724f3afa560a1dfdeab8d6f53"), prand: SampleData.hex("d02820"))
        #expect(ah.hexString == "3708fc")
    }
}
