/// An ATT Error Response code (Core spec v5.4 Vol 3 Part F 3.4.1.1, Core Specification Supplement
/// Part B for 0xFC–0xFF). A struct so application and future codes pass through unchanged. It is an
/// `Error` so server handlers can throw the code they want answered.
public struct ATTErrorCode: RawRepresentable, Hashable, Sendable, Error, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public init(_ rawValue: UInt8) { self.rawValue = rawValue }

    public static let invalidHandle = ATTErrorCode(0x01)
    public static let readNotPermitted = ATTErrorCode(0x02)
    public static let writeNotPermitted = ATTErrorCode(0x03)
    public static let invalidPDU = ATTErrorCode(0x04)
    public static let insufficientAuthentication = ATTErrorCode(0x05)
    public static let requestNotSupported = ATTErrorCode(0x06)
    public static let invalidOffset = ATTErrorCode(0x07)
    public static let insufficientAuthorization = ATTErrorCode(0x08)
    public static let prepareQueueFull = ATTErrorCode(0x09)
    public static let attributeNotFound = ATTErrorCode(0x0A)
    public static let attributeNotLong = ATTErrorCode(0x0B)
    public static let encryptionKeySizeTooShort = ATTErrorCode(0x0C)
    public static let invalidAttributeValueLength = ATTErrorCode(0x0D)
    public static let unlikelyError = ATTErrorCode(0x0E)
    public static let insufficientEncryption = ATTErrorCode(0x0F)
    public static let unsupportedGroupType = ATTErrorCode(0x10)
    public static let insufficientResources = ATTErrorCode(0x11)
    public static let databaseOutOfSync = ATTErrorCode(0x12)
    public static let valueNotAllowed = ATTErrorCode(0x13)
    // Common Profile and Service Error Codes (Supplement Part B 1.2).
    public static let writeRequestRejected = ATTErrorCode(0xFC)
    public static let cccdImproperlyConfigured = ATTErrorCode(0xFD)
    public static let procedureAlreadyInProgress = ATTErrorCode(0xFE)
    public static let outOfRange = ATTErrorCode(0xFF)

    /// An error a higher-layer specification defines (0x80–0x9F).
    public static func application(_ offset: UInt8) -> ATTErrorCode {
        ATTErrorCode(0x80 | (offset & 0x1F))
    }

    public var isApplicationError: Bool { (0x80...0x9F).contains(rawValue) }
    public var isCommonProfileError: Bool { rawValue >= 0xE0 }

    public var name: String {
        switch self {
        case .invalidHandle: return "Invalid Handle"
        case .readNotPermitted: return "Read Not Permitted"
        case .writeNotPermitted: return "Write Not Permitted"
        case .invalidPDU: return "Invalid PDU"
        case .insufficientAuthentication: return "Insufficient Authentication"
        case .requestNotSupported: return "Request Not Supported"
        case .invalidOffset: return "Invalid Offset"
        case .insufficientAuthorization: return "Insufficient Authorization"
        case .prepareQueueFull: return "Prepare Queue Full"
        case .attributeNotFound: return "Attribute Not Found"
        case .attributeNotLong: return "Attribute Not Long"
        case .encryptionKeySizeTooShort: return "Encryption Key Size Too Short"
        case .invalidAttributeValueLength: return "Invalid Attribute Value Length"
        case .unlikelyError: return "Unlikely Error"
        case .insufficientEncryption: return "Insufficient Encryption"
        case .unsupportedGroupType: return "Unsupported Group Type"
        case .insufficientResources: return "Insufficient Resources"
        case .databaseOutOfSync: return "Database Out Of Sync"
        case .valueNotAllowed: return "Value Not Allowed"
        case .writeRequestRejected: return "Write Request Rejected"
        case .cccdImproperlyConfigured: return "Client Characteristic Configuration Descriptor Improperly Configured"
        case .procedureAlreadyInProgress: return "Procedure Already In Progress"
        case .outOfRange: return "Out Of Range"
        default:
            if isApplicationError { return "Application Error" }
            if isCommonProfileError { return "Common Profile Error" }
            return "Reserved Error"
        }
    }

    /// What the code means for whoever reads a log, including what usually fixes it.
    public var explanation: String {
        switch self {
        case .invalidHandle: return "the attribute handle is not valid on this server"
        case .readNotPermitted: return "the attribute cannot be read"
        case .writeNotPermitted: return "the attribute cannot be written"
        case .invalidPDU: return "the request was malformed or had the wrong length"
        case .insufficientAuthentication: return "the central must pair first (with MITM protection where the attribute asks for it)"
        case .requestNotSupported: return "the server does not support this request"
        case .invalidOffset: return "the offset is past the end of the attribute value"
        case .insufficientAuthorization: return "the client is not authorized for this attribute"
        case .prepareQueueFull: return "too many prepared writes are queued; execute or cancel them first"
        case .attributeNotFound: return "no attribute in the requested handle range matches"
        case .attributeNotLong: return "the attribute is short; use a plain Read instead of Read Blob"
        case .encryptionKeySizeTooShort: return "the encryption key is too short; pair again with a longer key"
        case .invalidAttributeValueLength: return "the value length is not valid for this attribute"
        case .unlikelyError: return "the request could not be completed for an unlikely reason"
        case .insufficientEncryption: return "the link must be encrypted first"
        case .unsupportedGroupType: return "the type is not a grouping attribute type"
        case .insufficientResources: return "the server ran out of resources for this request"
        case .databaseOutOfSync: return "the server's database changed; rediscover services before retrying"
        case .valueNotAllowed: return "the value is not allowed for this attribute"
        case .writeRequestRejected: return "the write was rejected by the profile"
        case .cccdImproperlyConfigured: return "the client must enable notifications or indications first"
        case .procedureAlreadyInProgress: return "a profile procedure is already running; wait for it to finish"
        case .outOfRange: return "the value is outside the range the profile allows"
        default:
            if isApplicationError { return "error defined by the profile or application" }
            if isCommonProfileError { return "error defined by a common profile specification" }
            return "reserved error code"
        }
    }

    /// "Insufficient Authentication (0x05)": the name with its code.
    public var nameAndCode: String { "\(name) (\(rawValue.hexLiteral))" }

    public var description: String { "\(nameAndCode): \(explanation)" }
}
