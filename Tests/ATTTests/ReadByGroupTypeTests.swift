import TestSupport
import Testing
import BLECore
@testable import ATT

@Suite struct ReadByGroupTypeTests {
    @Test func requestVectors() throws {
        // Discover All Primary Services.
        let primary = ATTPDU.readByGroupTypeRequest(startHandle: 1, endHandle: 0xFFFF, groupType: BluetoothUUID(0x2800))
        #expect(primary.encode() == hex("10 01 00 ff ff 00 28"))
        #expect(try ATTPDU.decode(hex("10 01 00 ff ff 00 28")) == primary)
        let custom = ATTPDU.readByGroupTypeRequest(startHandle: 0x20, endHandle: 0x30, groupType: nus)
        #expect(custom.encode() == hex("10 20 00 30 00 " + nusWire))
        #expect(try ATTPDU.decode(hex("10 20 00 30 00 " + nusWire)) == custom)
        #expect(throws: ATTDecodingError.self) { try ATTPDU.decode(hex("10 01 00 ff ff 00")) }
    }

    @Test func responseVectors() throws {
        let list = try ATTGroupDataList([ATTGroupData(handle: 1, endGroupHandle: 5, value: [0x00, 0x18]),
                                         ATTGroupData(handle: 6, endGroupHandle: 9, value: [0x01, 0x18])])
        #expect(ATTPDU.readByGroupTypeResponse(list).encode() == hex("11 06 01 00 05 00 00 18 06 00 09 00 01 18"))
        #expect(try ATTPDU.decode(hex("11 06 01 00 05 00 00 18 06 00 09 00 01 18")) == .readByGroupTypeResponse(list))
        let long = try ATTGroupDataList([ATTGroupData(handle: 0x20, endGroupHandle: 0x2F, value: nus.littleEndian128)])
        #expect(ATTPDU.readByGroupTypeResponse(long).encode() == hex("11 14 20 00 2f 00 " + nusWire))
    }

    @Test func malformedResponses() {
        #expect(throws: ATTDecodingError.self) { try ATTPDU.decode(hex("11 03 01 00 05")) }
        #expect(throws: ATTDecodingError.self) { try ATTPDU.decode(hex("11 06")) }
        #expect(throws: ATTDecodingError.self) { try ATTPDU.decode(hex("11 06 01 00 05 00 00 18 06 00")) }
        #expect(throws: ATTListError.mixedValueLengths(expected: 2, index: 1, actual: 16)) {
            try ATTGroupDataList([ATTGroupData(handle: 1, endGroupHandle: 5, value: [0, 0x18]),
                                  ATTGroupData(handle: 6, endGroupHandle: 9, value: nus.littleEndian128)])
        }
        #expect(throws: ATTListError.valueTooLong(length: 252, maximum: 251)) {
            try ATTGroupDataList([ATTGroupData(handle: 1, endGroupHandle: 5, value: [UInt8](repeating: 0, count: 252))])
        }
    }

    private func services(_ values: [[UInt8]]) -> [ATTGroupData] {
        values.enumerated().map { ATTGroupData(handle: UInt16($0.offset * 10 + 1), endGroupHandle: UInt16($0.offset * 10 + 9), value: $0.element) }
    }

    private func list(_ pdu: ATTPDU?) -> [ATTGroupData] {
        guard case let .readByGroupTypeResponse(list)? = pdu else { return [] }
        return list.entries
    }

    @Test(arguments: [(23, 3, 1), (247, 40, 12), (517, 85, 25)])
    func builderFitsMTU(mtu: Int, shortCount: Int, longCount: Int) {
        let short = ATTPDU.readByGroupTypeResponse(fitting: services([[UInt8]](repeating: [0x0D, 0x18], count: 100)), mtu: mtu)
        #expect(list(short).count == shortCount)
        #expect((short?.encode().count ?? .max) <= mtu)
        let long = ATTPDU.readByGroupTypeResponse(fitting: services([[UInt8]](repeating: nus.littleEndian128, count: 100)), mtu: mtu)
        #expect(list(long).count == longCount)
        #expect((long?.encode().count ?? .max) <= mtu)
    }

    @Test(arguments: [23, 247, 517])
    func builderStopsAtFirstDifferentLength(mtu: Int) {
        let pdu = ATTPDU.readByGroupTypeResponse(fitting: services([[0x00, 0x18], nus.littleEndian128, [0x01, 0x18]]), mtu: mtu)
        #expect(list(pdu).map(\.handle) == [1])
        #expect(ATTPDU.readByGroupTypeResponse(fitting: [], mtu: mtu) == nil)
    }

    @Test(arguments: [(23, 17), (247, 241), (517, 251)])
    func builderTruncatesValues(mtu: Int, valueLength: Int) {
        let pdu = ATTPDU.readByGroupTypeResponse(fitting: services([[UInt8](repeating: 9, count: 400)]), mtu: mtu)
        #expect(list(pdu).first?.value.count == valueLength)
        #expect(pdu?.encode().dropFirst().first.map(Int.init) == valueLength + 4)
        #expect((pdu?.encode().count ?? .max) <= mtu)
    }
}
