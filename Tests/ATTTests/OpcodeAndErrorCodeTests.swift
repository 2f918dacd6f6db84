import Testing
@testable import ATT

@Suite struct OpcodeTests {
    @Test func flagsComeFromBitsSixAndSeven() {
        #expect(ATTOpcode.writeCommand.isCommand)
        #expect(!ATTOpcode.writeCommand.hasAuthenticationSignature)
        #expect(ATTOpcode.signedWriteCommand.isCommand)
        #expect(ATTOpcode.signedWriteCommand.hasAuthenticationSignature)
        #expect(ATTOpcode.signedWriteCommand.method == ATTOpcode.writeRequest.method)
        #expect(ATTOpcode.writeCommand.method == 0x12)
        #expect(!ATTOpcode.writeRequest.isCommand)
    }

    @Test func requestsAnswerWithTheNextOpcode() {
        let requests: [ATTOpcode] = [.exchangeMTURequest, .findInformationRequest, .findByTypeValueRequest, .readByTypeRequest,
                                     .readRequest, .readBlobRequest, .readMultipleRequest, .readByGroupTypeRequest,
                                     .writeRequest, .prepareWriteRequest, .executeWriteRequest, .readMultipleVariableRequest]
        for request in requests {
            #expect(request.isRequest, "\(request)")
            #expect(request.responseOpcode == ATTOpcode(request.rawValue + 1), "\(request)")
        }
        #expect(ATTOpcode.readMultipleVariableRequest.responseOpcode == .readMultipleVariableResponse)
        #expect(ATTOpcode.handleValueIndication.responseOpcode == .handleValueConfirmation)
        let nonRequests = ATTOpcode.allKnown.filter { !requests.contains($0) }
        #expect(nonRequests.count == 19)
        for opcode in nonRequests where opcode != .handleValueIndication {
            #expect(!opcode.isRequest, "\(opcode)")
            #expect(opcode.responseOpcode == nil, "\(opcode)")
        }
    }

    @Test func pduClassification() {
        #expect(ATTPDU.readRequest(handle: 1).isRequest)
        #expect(ATTPDU.readRequest(handle: 1).expectsResponse)
        #expect(ATTPDU.readRequest(handle: 1).responseOpcode == .readResponse)
        #expect(!ATTPDU.writeCommand(handle: 1, value: []).isRequest)
        #expect(ATTPDU.writeCommand(handle: 1, value: []).isCommand)
        #expect(!ATTPDU.writeCommand(handle: 1, value: []).expectsResponse)
        #expect(ATTPDU.handleValueIndication(handle: 1, value: []).expectsResponse)
        #expect(!ATTPDU.handleValueIndication(handle: 1, value: []).isRequest)
        #expect(!ATTPDU.handleValueNotification(handle: 1, value: []).expectsResponse)
        #expect(!ATTPDU.handleValueConfirmation.expectsResponse)
        // Unknown: the command flag decides between Request Not Supported and silence.
        #expect(ATTPDU.unknown(opcode: ATTOpcode(0x3F), parameters: []).isRequest)
        #expect(ATTPDU.unknown(opcode: ATTOpcode(0x3F), parameters: []).responseOpcode == nil)
        #expect(!ATTPDU.unknown(opcode: ATTOpcode(0x7F), parameters: []).isRequest)
        #expect(ATTPDU.unknown(opcode: ATTOpcode(0x7F), parameters: []).isCommand)
    }

    @Test func namesAndUnknownDescriptions() {
        #expect(ATTOpcode.allKnown.count == 31)
        #expect(Set(ATTOpcode.allKnown).count == 31)
        for opcode in ATTOpcode.allKnown { #expect(opcode.name != nil, "\(opcode.rawValue)") }
        #expect(ATTOpcode.readMultipleVariableRequest.description == "ATT_READ_MULTIPLE_VARIABLE_REQ (0x20)")
        #expect(ATTOpcode(0x14).description == "unknown opcode 0x14")
        #expect(!ATTOpcode(0x14).isKnown)
    }

    @Test func errorResponseBuilder() {
        let pdu = ATTPDU.errorResponse(for: .writeRequest, handle: 0x0010, error: .writeNotPermitted)
        #expect(pdu.encode() == [0x01, 0x12, 0x10, 0x00, 0x03])
    }
}

@Suite struct ErrorCodeTests {
    @Test func specValues() {
        let expected: [(ATTErrorCode, UInt8, String)] = [
            (.invalidHandle, 0x01, "Invalid Handle"), (.readNotPermitted, 0x02, "Read Not Permitted"),
            (.writeNotPermitted, 0x03, "Write Not Permitted"), (.invalidPDU, 0x04, "Invalid PDU"),
            (.insufficientAuthentication, 0x05, "Insufficient Authentication"), (.requestNotSupported, 0x06, "Request Not Supported"),
            (.invalidOffset, 0x07, "Invalid Offset"), (.insufficientAuthorization, 0x08, "Insufficient Authorization"),
            (.prepareQueueFull, 0x09, "Prepare Queue Full"), (.attributeNotFound, 0x0A, "Attribute Not Found"),
            (.attributeNotLong, 0x0B, "Attribute Not Long"), (.encryptionKeySizeTooShort, 0x0C, "Encryption Key Size Too Short"),
            (.invalidAttributeValueLength, 0x0D, "Invalid Attribute Value Length"), (.unlikelyError, 0x0E, "Unlikely Error"),
            (.insufficientEncryption, 0x0F, "Insufficient Encryption"), (.unsupportedGroupType, 0x10, "Unsupported Group Type"),
            (.insufficientResources, 0x11, "Insufficient Resources"), (.databaseOutOfSync, 0x12, "Database Out Of Sync"),
            (.valueNotAllowed, 0x13, "Value Not Allowed"), (.writeRequestRejected, 0xFC, "Write Request Rejected"),
            (.cccdImproperlyConfigured, 0xFD, "Client Characteristic Configuration Descriptor Improperly Configured"),
            (.procedureAlreadyInProgress, 0xFE, "Procedure Already In Progress"), (.outOfRange, 0xFF, "Out Of Range"),
        ]
        for (code, raw, name) in expected {
            #expect(code.rawValue == raw)
            #expect(code.name == name)
            #expect(code.description.contains(name))
            #expect(!code.explanation.isEmpty)
        }
    }

    @Test func rangesAndUnknownValues() {
        #expect(ATTErrorCode.application(0x00).rawValue == 0x80)
        #expect(ATTErrorCode.application(0x1F).rawValue == 0x9F)
        #expect(ATTErrorCode.application(0x20).rawValue == 0x80)
        #expect(ATTErrorCode(0x85).isApplicationError)
        #expect(ATTErrorCode(0x85).name == "Application Error")
        #expect(!ATTErrorCode(0xA0).isApplicationError)
        #expect(ATTErrorCode(0xE0).isCommonProfileError)
        #expect(ATTErrorCode(0xE0).name == "Common Profile Error")
        #expect(ATTErrorCode(0x14).name == "Reserved Error")
        #expect(ATTErrorCode(0x14).description == "Reserved Error (0x14): reserved error code")
        #expect(ATTErrorCode.invalidPDU.description == "Invalid PDU (0x04): the request was malformed or had the wrong length")
    }

    @Test func constants() {
        #expect(ATTConstants.defaultLEMTU == 23)
        #expect(ATTConstants.maximumMTU == 517)
        #expect(ATTConstants.maximumAttributeValueLength == 512)
        #expect(ATTConstants.negotiatedMTU(clientRxMTU: 517, serverRxMTU: 247) == 247)
        #expect(ATTConstants.negotiatedMTU(clientRxMTU: 10, serverRxMTU: 247) == 23)
        #expect(ATTConstants.negotiatedMTU(clientRxMTU: 100, serverRxMTU: 517) == 100)
    }
}
