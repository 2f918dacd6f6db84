import TestSupport
import Testing
@testable import ATT

@Suite struct WriteTests {
    @Test func vectors() throws {
        #expect(ATTPDU.writeRequest(handle: 3, value: [1, 2]).encode() == hex("12 03 00 01 02"))
        #expect(ATTPDU.writeResponse.encode() == hex("13"))
        #expect(ATTPDU.writeCommand(handle: 3, value: [0xFF]).encode() == hex("52 03 00 ff"))
        #expect(try ATTPDU.decode(hex("12 03 00")) == .writeRequest(handle: 3, value: []))
        #expect(try ATTPDU.decode(hex("13")) == .writeResponse)
        #expect(try ATTPDU.decode(hex("52 03 00 ff")) == .writeCommand(handle: 3, value: [0xFF]))
        #expect(throws: ATTDecodingError.unexpectedLength(opcode: .writeResponse, expected: 1, actual: 2)) { try ATTPDU.decode(hex("13 00")) }
        #expect(throws: ATTDecodingError.self) { try ATTPDU.decode(hex("12 03")) }
    }

    @Test func signedWriteMatchesTheSpecExample() throws {
        // Core v5.4 Vol 3 Part F 3.4.5.4: m = D212001337, SignCounter 1, CMAC F20F903C931E87F1…
        let bytes = hex("d2 12 00 13 37 01 00 00 00 f1 87 1e 93 3c 90 0f f2")
        let signature = ATTAuthenticationSignature(signCounter: 1, mac: 0xF20F_903C_931E_87F1)
        #expect(signature.bytes == hex("01 00 00 00 f1 87 1e 93 3c 90 0f f2"))
        let pdu = ATTPDU.signedWriteCommand(handle: 0x0012, value: [0x13, 0x37], signature: signature)
        #expect(pdu.encode() == bytes)
        #expect(try ATTPDU.decode(bytes) == pdu)
        #expect(pdu.isCommand)
        #expect(!pdu.isRequest)
    }

    @Test func signedWriteNeedsTheWholeSignature() throws {
        #expect(try ATTPDU.decode(hex("d2 12 00 01 00 00 00 f1 87 1e 93 3c 90 0f f2"))
                == .signedWriteCommand(handle: 0x12, value: [], signature: ATTAuthenticationSignature(signCounter: 1, mac: 0xF20F_903C_931E_87F1)))
        let short = hex("d2 12 00 01 00 00 00 f1 87 1e 93 3c 90 0f")
        #expect(throws: ATTDecodingError.self) { try ATTPDU.decode(short) }
        // A malformed command is never answered.
        do { _ = try ATTPDU.decode(short) } catch { #expect(error.errorResponse == nil) }
    }
}
