import BLECore

/// Checks one service in isolation: everything that does not depend on the rest of the database.
enum ServiceValidator {
    static func validate(_ service: GATTService) throws(GATTDatabaseError) {
        try checkUUID(service.uuid, context: "service")
        for characteristic in service.characteristics {
            try validate(characteristic, in: service)
        }
    }

    private static func checkUUID(_ uuid: BluetoothUUID, context: String) throws(GATTDatabaseError) {
        if uuid == GATTUUID.zero { throw .zeroUUID(context: context) }
        if GATTUUID.declarationTypes.contains(uuid) { throw .reservedUUID(uuid, context: context) }
    }

    private static func validate(_ characteristic: GATTCharacteristic, in service: GATTService) throws(GATTDatabaseError) {
        // The builder has resolved the id before validation; the fallback only serves messages.
        let id = characteristic.id ?? CharacteristicID("\(service.uuid)/\(characteristic.uuid)")
        try checkUUID(characteristic.uuid, context: "characteristic \(id)")
        let properties = characteristic.declaredProperties
        let permissions = characteristic.permissions

        if properties.contains(.read), !permissions.contains(.readable) {
            throw .readPropertyWithoutReadablePermission(id)
        }
        if permissions.contains(.readable), !properties.contains(.read) {
            throw .readablePermissionWithoutReadProperty(id)
        }
        if !properties.isDisjoint(with: .anyWrite), !permissions.contains(.writeable) {
            throw .writePropertyWithoutWriteablePermission(id)
        }
        if permissions.contains(.writeable), properties.isDisjoint(with: .anyWrite) {
            throw .writeablePermissionWithoutWriteProperty(id)
        }
        try checkSecurity(permissions, id: id, attribute: characteristic.uuid, updates: !properties.isDisjoint(with: .anyUpdate))
        if characteristic.extendedProperties.contains(.reliableWrite), !properties.contains(.write) {
            throw .reliableWriteWithoutWriteProperty(id)
        }

        if case let .static(bytes) = characteristic.value {
            if permissions.contains(.writeable) { throw .staticValueOnWriteableCharacteristic(id) }
            if !properties.isDisjoint(with: .anyUpdate) { throw .staticValueOnNotifyingCharacteristic(id) }
            if !permissions.contains(.readable) { throw .staticValueNotReadable(id) }
            if bytes.count > GATTDatabaseError.maximumValueLength {
                throw .valueTooLong(id, attribute: characteristic.uuid, length: bytes.count)
            }
        }

        for descriptor in characteristic.descriptors {
            try validate(descriptor, of: id)
        }
        if characteristic.extendedProperties.contains(.writableAuxiliaries) {
            let writeableDescription = characteristic.descriptors.contains {
                $0.uuid == GATTUUID.userDescription && $0.permissions.contains(.writeable) && $0.value == .dynamic
            }
            if !writeableDescription { throw .writableAuxiliariesWithoutWriteableUserDescription(id) }
        }
    }

    private static func validate(_ descriptor: GATTDescriptor, of id: CharacteristicID) throws(GATTDatabaseError) {
        if descriptor.uuid == GATTUUID.zero { throw .zeroUUID(context: "a descriptor of characteristic \(id)") }
        if GATTUUID.declarationTypes.contains(descriptor.uuid) {
            throw .reservedUUID(descriptor.uuid, context: "a descriptor of characteristic \(id)")
        }
        if GATTUUID.generatedDescriptorTypes.contains(descriptor.uuid) {
            throw .generatedDescriptorSupplied(id, descriptor: descriptor.uuid)
        }
        try checkSecurity(descriptor.permissions, id: id, attribute: descriptor.uuid)
        if case let .static(bytes) = descriptor.value {
            if descriptor.permissions.contains(.writeable) {
                throw .staticDescriptorWriteable(id, descriptor: descriptor.uuid)
            }
            if bytes.count > GATTDatabaseError.maximumValueLength {
                throw .valueTooLong(id, attribute: descriptor.uuid, length: bytes.count)
            }
        }
    }

    /// A security requirement on an access that is not permitted at all is a contradiction.
    /// Read security on a value that is only notified or indicated is no contradiction: it guards the
    /// subscription (the CCCD write), so the value reaches only links with that security.
    private static func checkSecurity(
        _ permissions: AttributePermissions, id: CharacteristicID, attribute: BluetoothUUID, updates: Bool = false
    ) throws(GATTDatabaseError) {
        if !permissions.isDisjoint(with: AttributePermissions.readSecurity), !permissions.contains(.readable), !updates {
            throw .securityWithoutAccess(id, attribute: attribute,
                                         detail: "read security is required but the attribute is not .readable; add .readable or drop the read requirement")
        }
        if !permissions.isDisjoint(with: AttributePermissions.writeSecurity), !permissions.contains(.writeable) {
            throw .securityWithoutAccess(id, attribute: attribute,
                                         detail: "write security is required but the attribute is not .writeable; add .writeable or drop the write requirement")
        }
    }
}
