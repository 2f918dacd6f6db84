import TestSupport
import Testing
import BLECore
@testable import ATT

@Suite struct ErrorAndMTUTests {
    @Test func errorResponseVector() throws {
        let pdu = ATTPDU.errorResponse(requestOpcode: .readRequest, handle: 0x0001, error: .attributeNotFound)
        #expect(pdu.encode() == hex("01 0a 01 00 0a"))
        #expect(try ATTPDU.decode(hex("01 0a 01 00 0a")) == pdu)
        // An application error against an unknown request opcode keeps both raw values.
        let custom = try ATTPDU.decode(hex("01 3f 34 12 81"))
        #expect(custom == .errorResponse(requestOpcode: ATTOpcode(0x3F), handle: 0x1234, error: .application(1)))
    }

    @Test func exchangeMTUVectors() throws {
        #expect(ATTPDU.exchangeMTURequest(clientRxMTU: 247).encode() == hex("02 f7 00"))
        #expect(ATTPDU.exchangeMTUResponse(serverRxMTU: 517).encode() == hex("03 05 02"))
        #expect(try ATTPDU.decode(hex("02 17 00")) == .exchangeMTURequest(clientRxMTU: 23))
        #expect(try ATTPDU.decode(hex("03 f7 00")) == .exchangeMTUResponse(serverRxMTU: 247))
    }

    @Test func fixedLayoutsRejectExtraOctets() {
        #expect(throws: ATTDecodingError.unexpectedLength(opcode: .exchangeMTURequest, expected: 3, actual: 4)) {
            try ATTPDU.decode(hex("02 f7 00 00"))
        }
        #expect(throws: ATTDecodingError.unexpectedLength(opcode: .errorResponse, expected: 5, actual: 6)) {
            try ATTPDU.decode(hex("01 0a 01 00 0a 00"))
        }
    }

    @Test func truncationNamesTheOpcodeAndAnswersInvalidPDU() {
        do {
            _ = try ATTPDU.decode(hex("02 f7"))
            Issue.record("a one-octet MTU decoded")
        } catch {
            #expect(error == .truncated(opcode: .exchangeMTURequest, .truncated(needed: 2, available: 1, offset: 0)))
            #expect(error.opcode == .exchangeMTURequest)
            #expect(error.errorResponse?.encode() == hex("01 02 00 00 04"))
            #expect(error.description.contains("ATT_EXCHANGE_MTU_REQ"))
        }
        #expect(throws: ATTDecodingError.empty) { try ATTPDU.decode([]) }
        #expect(ATTDecodingError.empty.errorResponse == nil)
        // A malformed response or command is dropped, not answered.
        #expect(ATTDecodingError.truncated(opcode: .exchangeMTUResponse, .truncated(needed: 2, available: 0, offset: 0)).errorResponse == nil)
        #expect(ATTDecodingError.truncated(opcode: .writeCommand, .truncated(needed: 2, available: 0, offset: 0)).errorResponse == nil)
    }
}
