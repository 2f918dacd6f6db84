import BLECore

/// Every Attribute Protocol PDU (Core spec v5.4 Vol 3 Part F 3.4). Decoding is total: malformed PDUs
/// throw `ATTDecodingError` carrying their opcode, unknown opcodes become `.unknown`.
public enum ATTPDU: Hashable, Sendable {
    // 3.4.1 Error handling
    case errorResponse(requestOpcode: ATTOpcode, handle: UInt16, error: ATTErrorCode)
    // 3.4.2 MTU exchange
    case exchangeMTURequest(clientRxMTU: UInt16)
    case exchangeMTUResponse(serverRxMTU: UInt16)
    // 3.4.3 Find information
    case findInformationRequest(startHandle: UInt16, endHandle: UInt16)
    case findInformationResponse(ATTInformationData)
    /// The Attribute Type of this request is always a 16-bit UUID (3.4.3.3).
    case findByTypeValueRequest(startHandle: UInt16, endHandle: UInt16, attributeType: UInt16, value: [UInt8])
    case findByTypeValueResponse([ATTHandlesInformation])
    // 3.4.4 Reading attributes
    case readByTypeRequest(startHandle: UInt16, endHandle: UInt16, attributeType: BluetoothUUID)
    case readByTypeResponse(ATTAttributeDataList)
    case readRequest(handle: UInt16)
    case readResponse(value: [UInt8])
    case readBlobRequest(handle: UInt16, offset: UInt16)
    case readBlobResponse(partValue: [UInt8])
    case readMultipleRequest(handles: [UInt16])
    case readMultipleResponse(values: [UInt8])
    case readByGroupTypeRequest(startHandle: UInt16, endHandle: UInt16, groupType: BluetoothUUID)
    case readByGroupTypeResponse(ATTGroupDataList)
    case readMultipleVariableRequest(handles: [UInt16])
    case readMultipleVariableResponse([ATTLengthValue])
    // 3.4.5 Writing attributes
    case writeRequest(handle: UInt16, value: [UInt8])
    case writeResponse
    case writeCommand(handle: UInt16, value: [UInt8])
    case signedWriteCommand(handle: UInt16, value: [UInt8], signature: ATTAuthenticationSignature)
    // 3.4.6 Queued writes
    case prepareWriteRequest(handle: UInt16, offset: UInt16, partValue: [UInt8])
    case prepareWriteResponse(handle: UInt16, offset: UInt16, partValue: [UInt8])
    case executeWriteRequest(ATTExecuteWriteFlags)
    case executeWriteResponse
    // 3.4.7 Server initiated
    case handleValueNotification(handle: UInt16, value: [UInt8])
    case handleValueIndication(handle: UInt16, value: [UInt8])
    case handleValueConfirmation
    case multipleHandleValueNotification([ATTHandleValue])
    /// An opcode this stack does not know; kept so a server can answer or ignore it as 3.4.9 requires.
    case unknown(opcode: ATTOpcode, parameters: [UInt8])

    public var opcode: ATTOpcode {
        switch self {
        case .errorResponse: return .errorResponse
        case .exchangeMTURequest: return .exchangeMTURequest
        case .exchangeMTUResponse: return .exchangeMTUResponse
        case .findInformationRequest: return .findInformationRequest
        case .findInformationResponse: return .findInformationResponse
        case .findByTypeValueRequest: return .findByTypeValueRequest
        case .findByTypeValueResponse: return .findByTypeValueResponse
        case .readByTypeRequest: return .readByTypeRequest
        case .readByTypeResponse: return .readByTypeResponse
        case .readRequest: return .readRequest
        case .readResponse: return .readResponse
        case .readBlobRequest: return .readBlobRequest
        case .readBlobResponse: return .readBlobResponse
        case .readMultipleRequest: return .readMultipleRequest
        case .readMultipleResponse: return .readMultipleResponse
        case .readByGroupTypeRequest: return .readByGroupTypeRequest
        case .readByGroupTypeResponse: return .readByGroupTypeResponse
        case .readMultipleVariableRequest: return .readMultipleVariableRequest
        case .readMultipleVariableResponse: return .readMultipleVariableResponse
        case .writeRequest: return .writeRequest
        case .writeResponse: return .writeResponse
        case .writeCommand: return .writeCommand
        case .signedWriteCommand: return .signedWriteCommand
        case .prepareWriteRequest: return .prepareWriteRequest
        case .prepareWriteResponse: return .prepareWriteResponse
        case .executeWriteRequest: return .executeWriteRequest
        case .executeWriteResponse: return .executeWriteResponse
        case .handleValueNotification: return .handleValueNotification
        case .handleValueIndication: return .handleValueIndication
        case .handleValueConfirmation: return .handleValueConfirmation
        case .multipleHandleValueNotification: return .multipleHandleValueNotification
        case let .unknown(opcode, _): return opcode
        }
    }

    /// Whether a server must answer this PDU (with its response or an Error Response). Unknown
    /// opcodes without the command flag count as requests: the flag is the only hint the spec gives,
    /// and an unsupported request must get Request Not Supported (3.4.9).
    public var isRequest: Bool { Self.answersAsRequest(opcode) }

    /// Commands (bit 6 set) get no response; unsupported ones are ignored.
    public var isCommand: Bool { opcode.isCommand }

    /// Whether the sender waits for a reply: every request, and an indication (for its confirmation).
    public var expectsResponse: Bool { isRequest || opcode == .handleValueIndication }

    /// The opcode of the successful answer; nil for PDUs answered by nothing or only by an Error Response.
    public var responseOpcode: ATTOpcode? { opcode.responseOpcode }

    public static func answersAsRequest(_ opcode: ATTOpcode) -> Bool {
        opcode.isKnown ? opcode.isRequest : !opcode.isCommand
    }

    /// The Error Response for a failed request (3.4.1.1). `handle` is the attribute in error, or
    /// 0x0000 when no handle applies.
    public static func errorResponse(for requestOpcode: ATTOpcode, handle: UInt16, error: ATTErrorCode) -> ATTPDU {
        .errorResponse(requestOpcode: requestOpcode, handle: handle, error: error)
    }

    // MARK: Decoding

    /// Decodes one ATT PDU (the whole L2CAP payload of the ATT channel).
    public static func decode(_ bytes: [UInt8]) throws(ATTDecodingError) -> ATTPDU {
        guard let first = bytes.first else { throw .empty }
        let opcode = ATTOpcode(first)
        var r = ATTParameterReader(opcode: opcode, parameters: bytes.dropFirst())
        switch opcode {
        case .errorResponse, .exchangeMTURequest, .exchangeMTUResponse:
            return try decodeErrorOrMTU(&r)
        case .findInformationRequest, .findInformationResponse:
            return try decodeFindInformation(&r)
        case .findByTypeValueRequest, .findByTypeValueResponse:
            return try decodeFindByTypeValue(&r)
        case .readByTypeRequest, .readByTypeResponse:
            return try decodeReadByType(&r)
        case .readRequest, .readResponse, .readBlobRequest, .readBlobResponse:
            return try decodeRead(&r)
        case .readMultipleRequest, .readMultipleResponse, .readMultipleVariableRequest, .readMultipleVariableResponse:
            return try decodeReadMultiple(&r)
        case .readByGroupTypeRequest, .readByGroupTypeResponse:
            return try decodeReadByGroupType(&r)
        case .writeRequest, .writeResponse, .writeCommand, .signedWriteCommand:
            return try decodeWrite(&r)
        case .prepareWriteRequest, .prepareWriteResponse, .executeWriteRequest, .executeWriteResponse:
            return try decodeQueuedWrite(&r)
        case .handleValueNotification, .handleValueIndication, .handleValueConfirmation, .multipleHandleValueNotification:
            return try decodeServerInitiated(&r)
        default:
            return .unknown(opcode: opcode, parameters: r.remaining())
        }
    }

    // MARK: Encoding

    /// The PDU's octets, opcode first, exactly as the fields are given.
    public func encode() -> [UInt8] {
        var writer = ByteWriter(capacity: 32)
        writer.append(opcode)
        switch self {
        case .errorResponse, .exchangeMTURequest, .exchangeMTUResponse:
            encodeErrorOrMTU(into: &writer)
        case .findInformationRequest, .findInformationResponse:
            encodeFindInformation(into: &writer)
        case .findByTypeValueRequest, .findByTypeValueResponse:
            encodeFindByTypeValue(into: &writer)
        case .readByTypeRequest, .readByTypeResponse:
            encodeReadByType(into: &writer)
        case .readRequest, .readResponse, .readBlobRequest, .readBlobResponse:
            encodeRead(into: &writer)
        case .readMultipleRequest, .readMultipleResponse, .readMultipleVariableRequest, .readMultipleVariableResponse:
            encodeReadMultiple(into: &writer)
        case .readByGroupTypeRequest, .readByGroupTypeResponse:
            encodeReadByGroupType(into: &writer)
        case .writeRequest, .writeResponse, .writeCommand, .signedWriteCommand:
            encodeWrite(into: &writer)
        case .prepareWriteRequest, .prepareWriteResponse, .executeWriteRequest, .executeWriteResponse:
            encodeQueuedWrite(into: &writer)
        case .handleValueNotification, .handleValueIndication, .handleValueConfirmation, .multipleHandleValueNotification:
            encodeServerInitiated(into: &writer)
        case let .unknown(_, parameters):
            writer.append(contentsOf: parameters)
        }
        return writer.bytes
    }
}
