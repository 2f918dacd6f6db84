/// Why pairing failed, as Pairing Failed carries it (Core Vol 3 Part H 3.5.5).
public enum PairingFailureReason: Sendable, Equatable, CustomStringConvertible {
    case passkeyEntryFailed
    case oobNotAvailable
    case authenticationRequirements
    case confirmValueFailed
    case pairingNotSupported
    case encryptionKeySize
    case commandNotSupported
    case unspecifiedReason
    case repeatedAttempts
    case invalidParameters
    case dhKeyCheckFailed
    case numericComparisonFailed
    case bredrPairingInProgress
    case crossTransportKeyDerivationNotAllowed
    case keyRejected
    case busy
    /// A code this stack does not know (a later specification's), kept for the log.
    case other(UInt8)

    public init(code: UInt8) {
        switch code {
        case 0x01: self = .passkeyEntryFailed
        case 0x02: self = .oobNotAvailable
        case 0x03: self = .authenticationRequirements
        case 0x04: self = .confirmValueFailed
        case 0x05: self = .pairingNotSupported
        case 0x06: self = .encryptionKeySize
        case 0x07: self = .commandNotSupported
        case 0x08: self = .unspecifiedReason
        case 0x09: self = .repeatedAttempts
        case 0x0A: self = .invalidParameters
        case 0x0B: self = .dhKeyCheckFailed
        case 0x0C: self = .numericComparisonFailed
        case 0x0D: self = .bredrPairingInProgress
        case 0x0E: self = .crossTransportKeyDerivationNotAllowed
        case 0x0F: self = .keyRejected
        case 0x10: self = .busy
        default: self = .other(code)
        }
    }

    public var code: UInt8 {
        switch self {
        case .passkeyEntryFailed: return 0x01
        case .oobNotAvailable: return 0x02
        case .authenticationRequirements: return 0x03
        case .confirmValueFailed: return 0x04
        case .pairingNotSupported: return 0x05
        case .encryptionKeySize: return 0x06
        case .commandNotSupported: return 0x07
        case .unspecifiedReason: return 0x08
        case .repeatedAttempts: return 0x09
        case .invalidParameters: return 0x0A
        case .dhKeyCheckFailed: return 0x0B
        case .numericComparisonFailed: return 0x0C
        case .bredrPairingInProgress: return 0x0D
        case .crossTransportKeyDerivationNotAllowed: return 0x0E
        case .keyRejected: return 0x0F
        case .busy: return 0x10
        case let .other(code): return code
        }
    }

    /// The pairing failed because the two sides could not authenticate each other.
    public var isFailedAuthentication: Bool {
        switch self {
        case .passkeyEntryFailed, .confirmValueFailed, .dhKeyCheckFailed, .numericComparisonFailed: return true
        default: return false
        }
    }

    public var description: String {
        let text: String
        switch self {
        case .passkeyEntryFailed: text = "passkey entry failed or was cancelled"
        case .oobNotAvailable: text = "out-of-band data not available"
        case .authenticationRequirements: text = "authentication requirements cannot be met"
        case .confirmValueFailed: text = "confirm value failed (wrong passkey?)"
        case .pairingNotSupported: text = "pairing not supported"
        case .encryptionKeySize: text = "encryption key size too short"
        case .commandNotSupported: text = "command not supported"
        case .unspecifiedReason: text = "unspecified reason"
        case .repeatedAttempts: text = "repeated attempts (wait before pairing again)"
        case .invalidParameters: text = "invalid parameters"
        case .dhKeyCheckFailed: text = "DHKey check failed"
        case .numericComparisonFailed: text = "numeric comparison failed"
        case .bredrPairingInProgress: text = "BR/EDR pairing in progress"
        case .crossTransportKeyDerivationNotAllowed: text = "cross-transport key derivation not allowed"
        case .keyRejected: text = "key rejected"
        case .busy: text = "busy"
        case .other: text = "reason unknown to this stack"
        }
        return "\(text) (0x\(String(code, radix: 16, uppercase: true)))"
    }
}
