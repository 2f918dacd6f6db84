import TestSupport
import Testing
@testable import ATT

@Suite struct FindByTypeValueTests {
    @Test func requestVector() throws {
        // Discover Primary Service By Service UUID 0x180D.
        let pdu = ATTPDU.findByTypeValueRequest(startHandle: 1, endHandle: 0xFFFF, attributeType: 0x2800, value: [0x0D, 0x18])
        #expect(pdu.encode() == hex("06 01 00 ff ff 00 28 0d 18"))
        #expect(try ATTPDU.decode(hex("06 01 00 ff ff 00 28 0d 18")) == pdu)
        #expect(try ATTPDU.decode(hex("06 01 00 ff ff 00 28"))
                == .findByTypeValueRequest(startHandle: 1, endHandle: 0xFFFF, attributeType: 0x2800, value: []))
    }

    @Test func responseVector() throws {
        let pdu = ATTPDU.findByTypeValueResponse([ATTHandlesInformation(foundHandle: 0x10, groupEndHandle: 0x15),
                                                  ATTHandlesInformation(foundHandle: 0x20, groupEndHandle: 0xFFFF)])
        #expect(pdu.encode() == hex("07 10 00 15 00 20 00 ff ff"))
        #expect(try ATTPDU.decode(hex("07 10 00 15 00 20 00 ff ff")) == pdu)
    }

    @Test func malformedResponses() {
        #expect(throws: ATTDecodingError.self) { try ATTPDU.decode(hex("07")) }
        #expect(throws: ATTDecodingError.self) { try ATTPDU.decode(hex("07 10 00 15")) }
        #expect(throws: ATTDecodingError.self) { try ATTPDU.decode(hex("06 01 00 ff ff 00")) }
    }

    @Test(arguments: [(23, 5), (247, 61), (517, 129)])
    func builderFitsMTU(mtu: Int, count: Int) throws {
        let entries: [ATTHandlesInformation] = (UInt16(0)..<300).map { (index: UInt16) in
            ATTHandlesInformation(foundHandle: index * 2 + 1, groupEndHandle: index * 2 + 2)
        }
        let pdu = try #require(ATTPDU.findByTypeValueResponse(fitting: entries, mtu: mtu))
        #expect(pdu == .findByTypeValueResponse(Array(entries.prefix(count))))
        #expect(pdu.encode().count <= mtu)
        #expect(pdu.encode().count > mtu - 4)
        #expect(ATTPDU.findByTypeValueResponse(fitting: [], mtu: mtu) == nil)
    }
}
