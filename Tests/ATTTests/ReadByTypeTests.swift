import TestSupport
import Testing
import BLECore
@testable import ATT

@Suite struct ReadByTypeTests {
    @Test func requestVectors() throws {
        let short = ATTPDU.readByTypeRequest(startHandle: 1, endHandle: 0xFFFF, attributeType: BluetoothUUID(0x2803))
        #expect(short.encode() == hex("08 01 00 ff ff 03 28"))
        #expect(try ATTPDU.decode(hex("08 01 00 ff ff 03 28")) == short)
        let long = ATTPDU.readByTypeRequest(startHandle: 1, endHandle: 0xFFFF, attributeType: nus)
        #expect(long.encode() == hex("08 01 00 ff ff " + nusWire))
        #expect(try ATTPDU.decode(hex("08 01 00 ff ff " + nusWire)) == long)
        // A base UUID in its 128-bit form compares equal to the 16-bit one.
        #expect(try ATTPDU.decode(hex("08 01 00 ff ff fb 34 9b 5f 80 00 00 80 00 10 00 00 03 28 00 00")) == short)
    }

    @Test func requestRejectsOtherUUIDSizes() {
        for size in [0, 1, 3, 4, 15, 17] {
            let bytes = hex("08 01 00 ff ff") + [UInt8](repeating: 0x11, count: size)
            #expect(throws: ATTDecodingError.self, "\(size)") { try ATTPDU.decode(bytes) }
        }
    }

    @Test func responseVector() throws {
        let list = try ATTAttributeDataList([ATTHandleValue(handle: 2, value: [0x10, 0x03, 0x00, 0x37, 0x2A]),
                                             ATTHandleValue(handle: 4, value: [0x02, 0x05, 0x00, 0x38, 0x2A])])
        #expect(ATTPDU.readByTypeResponse(list).encode() == hex("09 07 02 00 10 03 00 37 2a 04 00 02 05 00 38 2a"))
        #expect(try ATTPDU.decode(hex("09 07 02 00 10 03 00 37 2a 04 00 02 05 00 38 2a")) == .readByTypeResponse(list))
        #expect(try ATTPDU.decode(hex("09 02 05 00")) == .readByTypeResponse(try ATTAttributeDataList([ATTHandleValue(handle: 5, value: [])])))
    }

    @Test func malformedResponses() {
        #expect(throws: ATTDecodingError.self) { try ATTPDU.decode(hex("09 01 05")) }        // length below a handle
        #expect(throws: ATTDecodingError.self) { try ATTPDU.decode(hex("09 04")) }           // no entries
        #expect(throws: ATTDecodingError.self) { try ATTPDU.decode(hex("09 04 01 00 aa bb 02 00 cc")) } // partial entry
    }

    @Test func listRules() {
        #expect(throws: ATTListError.empty) { try ATTAttributeDataList([]) }
        #expect(throws: ATTListError.mixedValueLengths(expected: 1, index: 1, actual: 2)) {
            try ATTAttributeDataList([ATTHandleValue(handle: 1, value: [1]), ATTHandleValue(handle: 2, value: [1, 2])])
        }
        #expect(throws: ATTListError.valueTooLong(length: 254, maximum: 253)) {
            try ATTAttributeDataList([ATTHandleValue(handle: 1, value: [UInt8](repeating: 0, count: 254))])
        }
    }

    private func entries(_ lengths: [Int]) -> [ATTHandleValue] {
        lengths.enumerated().map { ATTHandleValue(handle: UInt16($0.offset + 1), value: [UInt8](repeating: UInt8($0.offset), count: $0.element)) }
    }

    private func list(_ pdu: ATTPDU?) -> [ATTHandleValue] {
        guard case let .readByTypeResponse(list)? = pdu else { return [] }
        return list.entries
    }

    @Test(arguments: [(23, 3), (247, 35), (517, 73)])
    func builderKeepsEqualLengthEntriesThatFit(mtu: Int, count: Int) {
        let pdu = ATTPDU.readByTypeResponse(fitting: entries([Int](repeating: 5, count: 100)), mtu: mtu)
        #expect(list(pdu).count == count)
        #expect(list(pdu).map(\.handle) == (1...UInt16(count)).map { $0 })
        #expect((pdu?.encode().count ?? .max) <= mtu)
    }

    @Test(arguments: [23, 247, 517])
    func builderStopsAtFirstDifferentLength(mtu: Int) {
        let pdu = ATTPDU.readByTypeResponse(fitting: entries([5, 5, 7, 5, 5]), mtu: mtu)
        #expect(list(pdu).map(\.handle) == [1, 2])
        #expect(pdu?.encode().first(where: { _ in true }) == 0x09)
        #expect(pdu?.encode().dropFirst().first == 7)
    }

    @Test(arguments: [(23, 19, 1), (247, 243, 1), (517, 253, 2)])
    func builderTruncatesLongValues(mtu: Int, valueLength: Int, count: Int) {
        // Values longer than the limit all cut to the same length, so they may share a response.
        let pdu = ATTPDU.readByTypeResponse(fitting: entries([300, 400, 500]), mtu: mtu)
        #expect(list(pdu).count == count)
        #expect(list(pdu).allSatisfy { $0.value.count == valueLength })
        #expect(list(pdu).first?.value == [UInt8](repeating: 0, count: valueLength))
        let bytes = pdu?.encode() ?? []
        #expect(bytes.count <= mtu)
        #expect(bytes.count >= 2 && Int(bytes[1]) == valueLength + 2)
        #expect(ATTPDU.readByTypeResponse(fitting: [], mtu: mtu) == nil)
    }
}
