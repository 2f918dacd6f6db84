import ATT
import BLECore
import GATT
import HCI

/// Which ATT procedure carries an access, for the property check of characteristic values.
enum AccessKind {
    case read
    case write(GATTWriteKind)
}

// Permission checks (Core Vol 3 Part F 3.2.5, 4; Part C 10.3) and where attribute values come from.
extension GATTServer {
    /// nil when `attribute` may be accessed this way now; otherwise the error, checked in the order:
    /// read/write permitted (with the characteristic's properties), authentication, encryption, key size.
    func accessError(_ kind: AccessKind, _ attribute: Attribute, context: ConnectionContext) -> ATTErrorCode? {
        let permissions = attribute.permissions
        let authentication: AttributePermissions
        let encryption: AttributePermissions
        switch kind {
        case .read:
            guard permissions.contains(.readable) else { return .readNotPermitted }
            (authentication, encryption) = (.readAuthenticationRequired, .readEncryptionRequired)
        case let .write(writeKind):
            guard permissions.contains(.writeable) else { return .writeNotPermitted }
            if let characteristic = context.database.characteristic(forValueHandle: attribute.handle),
               !characteristic.properties.contains(Self.requiredProperty(writeKind)) {
                return .writeNotPermitted
            }
            (authentication, encryption) = (.writeAuthenticationRequired, .writeEncryptionRequired)
        }
        let needsAuthentication = permissions.contains(authentication)
        guard needsAuthentication || permissions.contains(encryption) else { return nil }
        // The security the link had when this PDU arrived (in order with Encryption Change).
        let security = context.security
        // Phones start pairing on Insufficient Authentication and re-encrypt with their keys on
        // Insufficient Encryption, so an unencrypted link gets the one that helps: a central without a
        // bond must pair, a bonded one only has to encrypt (Core Vol 3 Part C 10.3.1, Part G 8.1).
        if !security.isEncrypted { return context.link.isBonded ? .insufficientEncryption : .insufficientAuthentication }
        if needsAuthentication, !security.isAuthenticated { return .insufficientAuthentication }
        if security.keySize < Self.requiredKeySize { return .encryptionKeySizeTooShort }
        return nil
    }

    /// The key size attributes with a security requirement demand (the maximum, 128 bits).
    static let requiredKeySize = 16

    /// The property a write procedure needs on a characteristic value (Core Vol 3 Part G 3.3.1.1).
    private static func requiredProperty(_ kind: GATTWriteKind) -> CharacteristicProperties {
        switch kind {
        case .request, .preparedExecution: return .write
        case .command: return .writeWithoutResponse
        case .signedCommand: return .authenticatedSignedWrites
        }
    }

    /// Whether the value needs a round trip to the delegate (everything else the server knows itself).
    func isApplicationValue(_ attribute: Attribute) -> Bool {
        switch attribute.value {
        case .descriptorValue: return true
        case let .characteristicValue(id): return !isClientSupportedFeatures(id, attribute)
        case .fixed, .clientCharacteristicConfiguration, .serverCharacteristicConfiguration, .extendedProperties:
            return false
        }
    }

    func isClientSupportedFeatures(_ id: CharacteristicID, _ attribute: Attribute) -> Bool {
        id == .clientSupportedFeatures && attribute.type == GATTUUID.clientSupportedFeatures
    }

    /// The full value of a readable attribute; the caller has checked permissions.
    func value(of attribute: Attribute, context: ConnectionContext) async throws(RequestError) -> [UInt8] {
        switch attribute.value {
        case let .fixed(bytes):
            return bytes
        case let .extendedProperties(flags):
            return flags.littleEndianBytes
        case let .clientCharacteristicConfiguration(id):
            return configuration(of: id, on: context.link).littleEndianBytes
        case let .serverCharacteristicConfiguration(id):
            let raw = serverConfiguration(of: id)
            return [UInt8(truncatingIfNeeded: raw), UInt8(truncatingIfNeeded: raw >> 8)]
        case let .characteristicValue(id):
            if isClientSupportedFeatures(id, attribute) {
                return withConnection(context) { $0.clientFeatures } ?? [0x00]
            }
            return try await applicationValue(GATTReadRequest(link: context.link, characteristic: id),
                                              handle: attribute.handle)
        case let .descriptorValue(id, type):
            return try await applicationValue(
                GATTReadRequest(link: context.link, characteristic: id, descriptor: type),
                handle: attribute.handle)
        }
    }

    private func applicationValue(_ request: GATTReadRequest, handle: UInt16) async throws(RequestError) -> [UInt8] {
        switch await delegate.read(request) {
        case let .success(bytes):
            guard bytes.count <= ATTConstants.maximumAttributeValueLength else {
                logger.warning("GATT: the application returned \(bytes.count) octets for \(request.characteristic); an attribute value holds at most 512, the rest is not sent",
                               metadata: ["link": "\(request.link.id)"])
                return Array(bytes.prefix(ATTConstants.maximumAttributeValueLength))
            }
            return bytes
        case let .failure(code):
            throw RequestError(handle, code)
        }
    }

    /// The attribute at `handle` after the read checks, or the error naming `handle`.
    func readableAttribute(_ handle: UInt16, context: ConnectionContext) throws(RequestError) -> Attribute {
        guard let attribute = context.database.attribute(at: handle) else { throw RequestError(handle, .invalidHandle) }
        if let error = accessError(.read, attribute, context: context) {
            throw RequestError(handle, error)
        }
        return attribute
    }

    /// Handle range checks shared by the Find and Read By (Group) Type requests (3.4.3.1 and others).
    func checkRange(start: UInt16, end: UInt16) throws(RequestError) {
        guard start != 0, start <= end else { throw RequestError(start, .invalidHandle) }
    }
}
