import TestSupport
import Testing
@testable import ATT

@Suite struct QueuedWriteTests {
    @Test func prepareWriteVectors() throws {
        let request = ATTPDU.prepareWriteRequest(handle: 3, offset: 0x12, partValue: [1, 2, 3])
        #expect(request.encode() == hex("16 03 00 12 00 01 02 03"))
        #expect(try ATTPDU.decode(hex("16 03 00 12 00 01 02 03")) == request)
        let response = ATTPDU.prepareWriteResponse(handle: 3, offset: 0x12, partValue: [1, 2, 3])
        #expect(response.encode() == hex("17 03 00 12 00 01 02 03"))
        #expect(try ATTPDU.decode(hex("17 03 00 12 00 01 02 03")) == response)
        #expect(try ATTPDU.decode(hex("16 03 00 00 02")) == .prepareWriteRequest(handle: 3, offset: 512, partValue: []))
        #expect(throws: ATTDecodingError.self) { try ATTPDU.decode(hex("16 03 00 12")) }
    }

    @Test func executeWriteVectors() throws {
        #expect(ATTPDU.executeWriteRequest(.write).encode() == hex("18 01"))
        #expect(ATTPDU.executeWriteRequest(.cancel).encode() == hex("18 00"))
        #expect(ATTPDU.executeWriteResponse.encode() == hex("19"))
        #expect(try ATTPDU.decode(hex("18 01")) == .executeWriteRequest(.write))
        #expect(try ATTPDU.decode(hex("18 00")) == .executeWriteRequest(.cancel))
        #expect(try ATTPDU.decode(hex("19")) == .executeWriteResponse)
    }

    @Test func reservedExecuteFlagsAreInvalid() {
        for flags: UInt8 in [0x02, 0x80, 0xFF] {
            do {
                _ = try ATTPDU.decode([0x18, flags])
                Issue.record("flags \(flags) accepted")
            } catch {
                #expect(error.opcode == .executeWriteRequest)
                #expect(error.errorResponse == .errorResponse(requestOpcode: .executeWriteRequest, handle: 0, error: .invalidPDU))
            }
        }
        #expect(throws: ATTDecodingError.self) { try ATTPDU.decode(hex("18")) }
        #expect(throws: ATTDecodingError.self) { try ATTPDU.decode(hex("18 01 00")) }
        #expect(throws: ATTDecodingError.self) { try ATTPDU.decode(hex("19 00")) }
    }
}
