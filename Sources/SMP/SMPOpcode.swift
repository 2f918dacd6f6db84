/// Security Manager Protocol command codes (Core Vol 3 Part H 3.3).
public enum SMPOpcode: UInt8, Sendable, CaseIterable {
    case pairingRequest = 0x01
    case pairingResponse = 0x02
    case pairingConfirm = 0x03
    case pairingRandom = 0x04
    case pairingFailed = 0x05
    case encryptionInformation = 0x06
    case centralIdentification = 0x07
    case identityInformation = 0x08
    case identityAddressInformation = 0x09
    case signingInformation = 0x0A
    case securityRequest = 0x0B
    case pairingPublicKey = 0x0C
    case pairingDHKeyCheck = 0x0D
    case keypressNotification = 0x0E

    /// Octets after the code (every SMP command has a fixed length).
    var parameterLength: Int {
        switch self {
        case .pairingRequest, .pairingResponse: return 6
        case .pairingConfirm, .pairingRandom, .encryptionInformation, .identityInformation, .signingInformation,
             .pairingDHKeyCheck: return 16
        case .pairingFailed, .securityRequest, .keypressNotification: return 1
        case .centralIdentification: return 10
        case .identityAddressInformation: return 7
        case .pairingPublicKey: return 64
        }
    }
}
