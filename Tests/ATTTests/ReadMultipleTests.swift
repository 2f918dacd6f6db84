import TestSupport
import Testing
@testable import ATT

@Suite struct ReadMultipleTests {
    @Test func vectors() throws {
        #expect(ATTPDU.readMultipleRequest(handles: [3, 5]).encode() == hex("0e 03 00 05 00"))
        #expect(ATTPDU.readMultipleResponse(values: [1, 2, 3]).encode() == hex("0f 01 02 03"))
        #expect(ATTPDU.readMultipleVariableRequest(handles: [3, 5, 7]).encode() == hex("20 03 00 05 00 07 00"))
        let variable = ATTPDU.readMultipleVariableResponse([ATTLengthValue(value: [0xAA, 0xBB]), ATTLengthValue(value: [0xCC])])
        #expect(variable.encode() == hex("21 02 00 aa bb 01 00 cc"))
        #expect(try ATTPDU.decode(hex("0e 03 00 05 00")) == .readMultipleRequest(handles: [3, 5]))
        #expect(try ATTPDU.decode(hex("20 03 00 05 00 07 00")) == .readMultipleVariableRequest(handles: [3, 5, 7]))
        #expect(try ATTPDU.decode(hex("0f")) == .readMultipleResponse(values: []))
        #expect(try ATTPDU.decode(hex("21 02 00 aa bb 01 00 cc")) == variable)
    }

    @Test func requestsNeedTwoWholeHandles() {
        for bytes in ["0e", "0e 03 00", "0e 03 00 05", "20 03 00", "20 03 00 05 00 07"] {
            #expect(throws: ATTDecodingError.self, "\(bytes)") { try ATTPDU.decode(hex(bytes)) }
        }
    }

    @Test func truncatedLastTupleDecodes() throws {
        // The second value is 10 octets long but only 3 made it into the PDU (3.4.4.12).
        let pdu = try ATTPDU.decode(hex("21 01 00 aa 0a 00 01 02 03"))
        guard case let .readMultipleVariableResponse(tuples) = pdu else { Issue.record("wrong PDU"); return }
        #expect(tuples.map(\.valueLength) == [1, 10])
        #expect(tuples.last?.value == [1, 2, 3])
        #expect(tuples.last?.isTruncated == true)
        #expect(tuples.first?.isTruncated == false)
        #expect(pdu.encode() == hex("21 01 00 aa 0a 00 01 02 03"))
        // A tuple is never cut inside its Value Length field.
        #expect(throws: ATTDecodingError.self) { try ATTPDU.decode(hex("21 01 00 aa 0a")) }
        #expect(throws: ATTDecodingError.self) { try ATTPDU.decode(hex("21 00 00")) }
    }

    @Test(arguments: [23, 247, 517])
    func readMultipleResponseCuts(mtu: Int) {
        let values = [[UInt8](repeating: 1, count: 300), [UInt8](repeating: 2, count: 300)]
        let pdu = ATTPDU.readMultipleResponse(values: values, mtu: mtu)
        #expect(pdu.encode().count == mtu)
        #expect(pdu == .readMultipleResponse(values: Array(values.joined().prefix(mtu - 1))))
        #expect(ATTPDU.readMultipleResponse(values: [[1], [2, 3]], mtu: mtu) == .readMultipleResponse(values: [1, 2, 3]))
    }

    @Test func variableBuilderAtMTU23() {
        let ten = [UInt8](repeating: 7, count: 10)
        // 22 octets of room: 2+10, then 2 + 8 of the second value, whose length field still says 10.
        let cut = ATTPDU.readMultipleVariableResponse(fitting: [ten, ten, ten], mtu: 23)
        #expect(cut == .readMultipleVariableResponse([ATTLengthValue(value: ten), ATTLengthValue(valueLength: 10, value: Array(ten.prefix(8)))]))
        #expect(cut.encode().count == 23)
        // One octet left is inside the next Value Length field: the response ends before that tuple.
        let nineteen = [UInt8](repeating: 1, count: 19)
        #expect(ATTPDU.readMultipleVariableResponse(fitting: [nineteen, [5]], mtu: 23)
                == .readMultipleVariableResponse([ATTLengthValue(value: nineteen)]))
        // Exactly two left: the header goes in with an empty part of the value.
        let eighteen = [UInt8](repeating: 1, count: 18)
        #expect(ATTPDU.readMultipleVariableResponse(fitting: [eighteen, [5]], mtu: 23)
                == .readMultipleVariableResponse([ATTLengthValue(value: eighteen), ATTLengthValue(valueLength: 1, value: [])]))
    }

    @Test(arguments: [247, 517])
    func variableBuilderAtLargerMTU(mtu: Int) {
        let values = (0..<8).map { [UInt8](repeating: UInt8($0), count: 100) }
        let pdu = ATTPDU.readMultipleVariableResponse(fitting: values, mtu: mtu)
        guard case let .readMultipleVariableResponse(tuples) = pdu else { Issue.record("wrong PDU"); return }
        #expect(pdu.encode().count == mtu)
        #expect(tuples.allSatisfy { $0.valueLength == 100 })
        #expect(tuples.dropLast().allSatisfy { !$0.isTruncated })
        #expect(tuples.last?.isTruncated == true)
        #expect(tuples.count == (mtu == 247 ? 3 : 6))
    }
}
