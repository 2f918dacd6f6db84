import TestSupport
import Testing
import BLECore
@testable import ATT

@Suite struct FindInformationTests {
    @Test func requestVector() throws {
        #expect(ATTPDU.findInformationRequest(startHandle: 1, endHandle: 0xFFFF).encode() == hex("04 01 00 ff ff"))
        #expect(try ATTPDU.decode(hex("04 05 00 0a 00")) == .findInformationRequest(startHandle: 5, endHandle: 10))
    }

    @Test func responseVectorsBothFormats() throws {
        let short = try ATTInformationData(format: .bits16, entries: [ATTHandleUUID(handle: 1, uuid: BluetoothUUID(0x2800)),
                                                                      ATTHandleUUID(handle: 2, uuid: BluetoothUUID(0x2803))])
        #expect(ATTPDU.findInformationResponse(short).encode() == hex("05 01 01 00 00 28 02 00 03 28"))
        let long = try ATTInformationData(format: .bits128, entries: [ATTHandleUUID(handle: 0x10, uuid: nus)])
        #expect(ATTPDU.findInformationResponse(long).encode() == hex("05 02 10 00 " + nusWire))
        #expect(try ATTPDU.decode(hex("05 02 10 00 " + nusWire)) == .findInformationResponse(long))
        // A base UUID sent in the 128-bit format keeps that format on re-encoding.
        let baseIn128 = hex("05 02 03 00 fb 34 9b 5f 80 00 00 80 00 10 00 00 0d 18 00 00")
        let decoded = try ATTPDU.decode(baseIn128)
        #expect(decoded.encode() == baseIn128)
    }

    @Test func listRules() {
        #expect(throws: ATTListError.empty) { try ATTInformationData(format: .bits16, entries: []) }
        #expect(throws: ATTListError.uuidNotRepresentable(index: 1, uuid: nus.description)) {
            try ATTInformationData(format: .bits16, entries: [ATTHandleUUID(handle: 1, uuid: BluetoothUUID(0x2800)),
                                                              ATTHandleUUID(handle: 2, uuid: nus)])
        }
    }

    @Test func malformedResponses() {
        #expect(throws: ATTDecodingError.self) { try ATTPDU.decode(hex("05 03 01 00 00 28")) } // bad format
        #expect(throws: ATTDecodingError.self) { try ATTPDU.decode(hex("05 01")) } // empty list
        #expect(throws: ATTDecodingError.self) { try ATTPDU.decode(hex("05 01 01 00 00 28 02")) } // partial pair
        #expect(throws: ATTDecodingError.self) { try ATTPDU.decode(hex("05 02 01 00 00 28")) } // 16-bit pair in 128 format
    }

    private func handleUUIDs(_ count: Int, from start: UInt16, uuid: BluetoothUUID) -> [ATTHandleUUID] {
        (0..<count).map { ATTHandleUUID(handle: start + UInt16($0), uuid: uuid) }
    }

    @Test(arguments: [(23, 5, 1), (247, 61, 13), (517, 128, 28)])
    func builderFitsMTU(mtu: Int, sixteenBitCount: Int, longCount: Int) throws {
        let short = try #require(ATTPDU.findInformationResponse(fitting: handleUUIDs(200, from: 1, uuid: BluetoothUUID(0x2803)), mtu: mtu))
        guard case let .findInformationResponse(data) = short else { Issue.record("wrong PDU"); return }
        #expect(data.format == .bits16)
        #expect(data.entries.count == sixteenBitCount)
        #expect(short.encode().count <= mtu)
        let long = try #require(ATTPDU.findInformationResponse(fitting: handleUUIDs(200, from: 1, uuid: nus), mtu: mtu))
        guard case let .findInformationResponse(longData) = long else { Issue.record("wrong PDU"); return }
        #expect(longData.format == .bits128)
        #expect(longData.entries.count == longCount)
        #expect(long.encode().count <= mtu)
    }

    @Test func builderStopsAtFormatChange() throws {
        let entries = handleUUIDs(2, from: 1, uuid: BluetoothUUID(0x2800)) + [ATTHandleUUID(handle: 3, uuid: nus)]
            + handleUUIDs(2, from: 4, uuid: BluetoothUUID(0x2803))
        let pdu = try #require(ATTPDU.findInformationResponse(fitting: entries, mtu: 247))
        #expect(pdu.encode() == hex("05 01 01 00 00 28 02 00 00 28"))
        let rest = try #require(ATTPDU.findInformationResponse(fitting: Array(entries.dropFirst(2)), mtu: 247))
        #expect(rest.encode() == hex("05 02 03 00 " + nusWire))
        #expect(ATTPDU.findInformationResponse(fitting: [], mtu: 23) == nil)
    }
}
