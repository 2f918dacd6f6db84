/// An Attribute Opcode (Core spec v5.4 Vol 3 Part F 3.3.1, 3.4.8). A struct so unknown opcodes from
/// newer peers are kept and answered, never rejected at the type level.
public struct ATTOpcode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public init(_ rawValue: UInt8) { self.rawValue = rawValue }

    public static let errorResponse = ATTOpcode(0x01)
    public static let exchangeMTURequest = ATTOpcode(0x02)
    public static let exchangeMTUResponse = ATTOpcode(0x03)
    public static let findInformationRequest = ATTOpcode(0x04)
    public static let findInformationResponse = ATTOpcode(0x05)
    public static let findByTypeValueRequest = ATTOpcode(0x06)
    public static let findByTypeValueResponse = ATTOpcode(0x07)
    public static let readByTypeRequest = ATTOpcode(0x08)
    public static let readByTypeResponse = ATTOpcode(0x09)
    public static let readRequest = ATTOpcode(0x0A)
    public static let readResponse = ATTOpcode(0x0B)
    public static let readBlobRequest = ATTOpcode(0x0C)
    public static let readBlobResponse = ATTOpcode(0x0D)
    public static let readMultipleRequest = ATTOpcode(0x0E)
    public static let readMultipleResponse = ATTOpcode(0x0F)
    public static let readByGroupTypeRequest = ATTOpcode(0x10)
    public static let readByGroupTypeResponse = ATTOpcode(0x11)
    public static let writeRequest = ATTOpcode(0x12)
    public static let writeResponse = ATTOpcode(0x13)
    public static let prepareWriteRequest = ATTOpcode(0x16)
    public static let prepareWriteResponse = ATTOpcode(0x17)
    public static let executeWriteRequest = ATTOpcode(0x18)
    public static let executeWriteResponse = ATTOpcode(0x19)
    public static let handleValueNotification = ATTOpcode(0x1B)
    public static let handleValueIndication = ATTOpcode(0x1D)
    public static let handleValueConfirmation = ATTOpcode(0x1E)
    public static let readMultipleVariableRequest = ATTOpcode(0x20)
    public static let readMultipleVariableResponse = ATTOpcode(0x21)
    public static let multipleHandleValueNotification = ATTOpcode(0x23)
    public static let writeCommand = ATTOpcode(0x52)
    public static let signedWriteCommand = ATTOpcode(0xD2)

    /// Every opcode Core v5.4 defines.
    public static let allKnown: [ATTOpcode] = [
        .errorResponse, .exchangeMTURequest, .exchangeMTUResponse, .findInformationRequest,
        .findInformationResponse, .findByTypeValueRequest, .findByTypeValueResponse, .readByTypeRequest,
        .readByTypeResponse, .readRequest, .readResponse, .readBlobRequest, .readBlobResponse,
        .readMultipleRequest, .readMultipleResponse, .readByGroupTypeRequest, .readByGroupTypeResponse,
        .writeRequest, .writeResponse, .prepareWriteRequest, .prepareWriteResponse, .executeWriteRequest,
        .executeWriteResponse, .handleValueNotification, .handleValueIndication, .handleValueConfirmation,
        .readMultipleVariableRequest, .readMultipleVariableResponse, .multipleHandleValueNotification,
        .writeCommand, .signedWriteCommand,
    ]

    static let requests: Set<ATTOpcode> = [
        .exchangeMTURequest, .findInformationRequest, .findByTypeValueRequest, .readByTypeRequest,
        .readRequest, .readBlobRequest, .readMultipleRequest, .readByGroupTypeRequest, .writeRequest,
        .prepareWriteRequest, .executeWriteRequest, .readMultipleVariableRequest,
    ]

    /// Bits 0–5: the method, without the command and signature flags.
    public var method: UInt8 { rawValue & 0x3F }
    /// Bit 6: a command, which a server that does not support it silently ignores (3.3.1).
    public var isCommand: Bool { rawValue & 0x40 != 0 }
    /// Bit 7: a 12-octet authentication signature follows the parameters (3.3.1).
    public var hasAuthenticationSignature: Bool { rawValue & 0x80 != 0 }

    public var isKnown: Bool { Self.allKnown.contains(self) }
    /// One of the twelve client requests that a server must answer with a response or an Error Response.
    public var isRequest: Bool { Self.requests.contains(self) }

    /// The PDU that answers this one on success: request+1 for requests, confirmation for an indication.
    public var responseOpcode: ATTOpcode? {
        if isRequest { return ATTOpcode(rawValue + 1) }
        if self == .handleValueIndication { return .handleValueConfirmation }
        return nil
    }

    public var name: String? {
        switch self {
        case .errorResponse: return "ATT_ERROR_RSP"
        case .exchangeMTURequest: return "ATT_EXCHANGE_MTU_REQ"
        case .exchangeMTUResponse: return "ATT_EXCHANGE_MTU_RSP"
        case .findInformationRequest: return "ATT_FIND_INFORMATION_REQ"
        case .findInformationResponse: return "ATT_FIND_INFORMATION_RSP"
        case .findByTypeValueRequest: return "ATT_FIND_BY_TYPE_VALUE_REQ"
        case .findByTypeValueResponse: return "ATT_FIND_BY_TYPE_VALUE_RSP"
        case .readByTypeRequest: return "ATT_READ_BY_TYPE_REQ"
        case .readByTypeResponse: return "ATT_READ_BY_TYPE_RSP"
        case .readRequest: return "ATT_READ_REQ"
        case .readResponse: return "ATT_READ_RSP"
        case .readBlobRequest: return "ATT_READ_BLOB_REQ"
        case .readBlobResponse: return "ATT_READ_BLOB_RSP"
        case .readMultipleRequest: return "ATT_READ_MULTIPLE_REQ"
        case .readMultipleResponse: return "ATT_READ_MULTIPLE_RSP"
        case .readByGroupTypeRequest: return "ATT_READ_BY_GROUP_TYPE_REQ"
        case .readByGroupTypeResponse: return "ATT_READ_BY_GROUP_TYPE_RSP"
        case .writeRequest: return "ATT_WRITE_REQ"
        case .writeResponse: return "ATT_WRITE_RSP"
        case .prepareWriteRequest: return "ATT_PREPARE_WRITE_REQ"
        case .prepareWriteResponse: return "ATT_PREPARE_WRITE_RSP"
        case .executeWriteRequest: return "ATT_EXECUTE_WRITE_REQ"
        case .executeWriteResponse: return "ATT_EXECUTE_WRITE_RSP"
        case .handleValueNotification: return "ATT_HANDLE_VALUE_NTF"
        case .handleValueIndication: return "ATT_HANDLE_VALUE_IND"
        case .handleValueConfirmation: return "ATT_HANDLE_VALUE_CFM"
        case .readMultipleVariableRequest: return "ATT_READ_MULTIPLE_VARIABLE_REQ"
        case .readMultipleVariableResponse: return "ATT_READ_MULTIPLE_VARIABLE_RSP"
        case .multipleHandleValueNotification: return "ATT_MULTIPLE_HANDLE_VALUE_NTF"
        case .writeCommand: return "ATT_WRITE_CMD"
        case .signedWriteCommand: return "ATT_SIGNED_WRITE_CMD"
        default: return nil
        }
    }

    public var description: String {
        name.map { "\($0) (\(rawValue.hexLiteral))" } ?? "unknown opcode \(rawValue.hexLiteral)"
    }
}
