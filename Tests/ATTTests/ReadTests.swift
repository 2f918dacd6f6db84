import TestSupport
import Testing
@testable import ATT

@Suite struct ReadTests {
    @Test func vectors() throws {
        #expect(ATTPDU.readRequest(handle: 3).encode() == hex("0a 03 00"))
        #expect(ATTPDU.readResponse(value: [0x48, 0x65]).encode() == hex("0b 48 65"))
        #expect(ATTPDU.readBlobRequest(handle: 3, offset: 22).encode() == hex("0c 03 00 16 00"))
        #expect(ATTPDU.readBlobResponse(partValue: [1, 2]).encode() == hex("0d 01 02"))
        #expect(try ATTPDU.decode(hex("0a 34 12")) == .readRequest(handle: 0x1234))
        #expect(try ATTPDU.decode(hex("0b")) == .readResponse(value: []))
        #expect(try ATTPDU.decode(hex("0c 03 00 16 00")) == .readBlobRequest(handle: 3, offset: 22))
        #expect(try ATTPDU.decode(hex("0d")) == .readBlobResponse(partValue: []))
    }

    @Test func requestsHaveFixedLength() {
        #expect(throws: ATTDecodingError.unexpectedLength(opcode: .readRequest, expected: 3, actual: 4)) { try ATTPDU.decode(hex("0a 03 00 00")) }
        #expect(throws: ATTDecodingError.self) { try ATTPDU.decode(hex("0a 03")) }
        #expect(throws: ATTDecodingError.self) { try ATTPDU.decode(hex("0c 03 00 16")) }
        #expect(throws: ATTDecodingError.unexpectedLength(opcode: .readBlobRequest, expected: 5, actual: 6)) { try ATTPDU.decode(hex("0c 03 00 16 00 00")) }
    }

    private let long = (0..<600).map { UInt8(truncatingIfNeeded: $0) }

    @Test(arguments: [23, 247, 517])
    func readResponseCutsToMTUMinusOne(mtu: Int) {
        #expect(ATTPDU.readResponse(value: long, mtu: mtu) == .readResponse(value: Array(long.prefix(mtu - 1))))
        #expect(ATTPDU.readResponse(value: long, mtu: mtu).encode().count == mtu)
        #expect(ATTPDU.readResponse(value: [1, 2], mtu: mtu) == .readResponse(value: [1, 2]))
    }

    @Test(arguments: [23, 247, 517])
    func readBlobResponsePages(mtu: Int) throws {
        let page = mtu - 1
        #expect(try ATTPDU.readBlobResponse(value: long, offset: UInt16(page), mtu: mtu)
                == .readBlobResponse(partValue: Array(long[page..<min(600, 2 * page)])))
        #expect(try ATTPDU.readBlobResponse(value: long, offset: 600, mtu: mtu) == .readBlobResponse(partValue: []))
        #expect(throws: ATTErrorCode.invalidOffset) { try ATTPDU.readBlobResponse(value: long, offset: 601, mtu: mtu) }
        #expect(try ATTPDU.readBlobResponse(value: long, offset: 0, mtu: mtu).encode().count == mtu)
    }

    @Test func builderClampsNonsenseMTU() {
        // An MTU below the LE default cannot exist on a bearer; the builder uses 23.
        #expect(ATTPDU.readResponse(value: long, mtu: 0).encode().count == 23)
        #expect(ATTPDU.readResponse(value: long, mtu: -5).encode().count == 23)
        #expect(ATTPDU.readResponse(value: long, mtu: 100_000).encode().count == 517)
    }
}
