import BLECore

/// Turns validated services into the attribute table, assigning handles from 0x0001 in declaration order.
struct LayoutPlan {
    private(set) var attributes: [Attribute] = []
    private(set) var groups: [ServiceGroup] = []
    private(set) var characteristics: [DatabaseCharacteristic] = []

    /// Descriptors the database adds itself: CCCD, SCCD, Extended Properties.
    static func generatedDescriptorCount(_ characteristic: GATTCharacteristic) -> Int {
        let properties = characteristic.declaredProperties
        var count = 0
        if !properties.isDisjoint(with: .anyUpdate) { count += 1 }
        if properties.contains(.broadcast) { count += 1 }
        if properties.contains(.extendedProperties) { count += 1 }
        return count
    }

    /// `services` must already be validated, fit in the handle space and have resolved ids.
    init(services: [GATTService]) throws(GATTDatabaseError) {
        // First pass: every service's handle range, so includes may point forwards.
        var ranges: [BluetoothUUID: ClosedRange<UInt16>] = [:]
        var next = 1
        for service in services {
            let end = next + service.attributeCount - 1
            ranges[service.uuid] = UInt16(next)...UInt16(end)
            next = end + 1
        }
        for service in services {
            try lay(service, ranges: ranges)
        }
    }

    /// The handle the next appended attribute gets. The builder caps the table at 0xFFFF attributes,
    /// so this is only read when another attribute is about to be appended.
    private var nextHandle: UInt16 { UInt16(clamping: attributes.count + 1) }
    /// The handle of the attribute appended last.
    private var lastHandle: UInt16 { UInt16(clamping: attributes.count) }

    private mutating func append(_ type: BluetoothUUID, _ permissions: AttributePermissions, _ value: AttributeValue) {
        attributes.append(Attribute(handle: nextHandle, type: type, permissions: permissions, value: value))
    }

    private mutating func lay(_ service: GATTService, ranges: [BluetoothUUID: ClosedRange<UInt16>]) throws(GATTDatabaseError) {
        let start = nextHandle
        let kind: GATTServiceKind = service.isPrimary ? .primary : .secondary
        append(kind.declarationType, .readable, .fixed(service.uuid.shortestLittleEndian))
        for included in service.includedServices {
            guard let range = ranges[included] else {
                throw .includedServiceNotFound(service: service.uuid, included: included)
            }
            var writer = ByteWriter(capacity: 6)
            writer.append(range.lowerBound)
            writer.append(range.upperBound)
            // Only a 16-bit service UUID is carried (Core Vol 3 Part G 3.2, Table 3.2).
            if let short = included.uint16 { writer.append(short) }
            append(GATTUUID.include, .readable, .fixed(writer.bytes))
        }
        for characteristic in service.characteristics {
            lay(characteristic, serviceUUID: service.uuid)
        }
        groups.append(ServiceGroup(uuid: service.uuid, kind: kind, handles: start...lastHandle))
    }

    private mutating func lay(_ characteristic: GATTCharacteristic, serviceUUID: BluetoothUUID) {
        let id = characteristic.id ?? CharacteristicID("\(serviceUUID)/\(characteristic.uuid)")
        let properties = characteristic.declaredProperties
        let declarationHandle = nextHandle
        let valueHandle = declarationHandle + 1

        var declaration = ByteWriter(capacity: 19)
        declaration.append(properties.rawValue)
        declaration.append(valueHandle)
        declaration.append(contentsOf: characteristic.uuid.shortestLittleEndian)
        append(GATTUUID.characteristic, .readable, .fixed(declaration.bytes))

        switch characteristic.value {
        case let .static(bytes): append(characteristic.uuid, characteristic.permissions, .fixed(bytes))
        case .dynamic: append(characteristic.uuid, characteristic.permissions, .characteristicValue(id))
        }

        // Order: CCCD, SCCD, Extended Properties, then the application's descriptors
        // (the order of the example database in Core Vol 3 Part G Appendix B).
        var cccdHandle: UInt16?
        if !properties.isDisjoint(with: .anyUpdate) {
            cccdHandle = nextHandle
            // Subscribing needs the same link security as reading the value it delivers.
            var permissions: AttributePermissions = [.readable, .writeable]
            if characteristic.permissions.contains(.readEncryptionRequired) { permissions.insert(.writeEncryptionRequired) }
            if characteristic.permissions.contains(.readAuthenticationRequired) { permissions.insert(.writeAuthenticationRequired) }
            append(GATTUUID.clientCharacteristicConfiguration, permissions, .clientCharacteristicConfiguration(id))
        }
        var sccdHandle: UInt16?
        if properties.contains(.broadcast) {
            sccdHandle = nextHandle
            append(GATTUUID.serverCharacteristicConfiguration, [.readable, .writeable], .serverCharacteristicConfiguration(id))
        }
        if properties.contains(.extendedProperties) {
            append(GATTUUID.extendedProperties, .readable, .extendedProperties(characteristic.extendedProperties))
        }
        for descriptor in characteristic.descriptors {
            switch descriptor.value {
            case let .static(bytes): append(descriptor.uuid, descriptor.permissions, .fixed(bytes))
            case .dynamic: append(descriptor.uuid, descriptor.permissions, .descriptorValue(id, descriptor.uuid))
            }
        }

        characteristics.append(DatabaseCharacteristic(
            id: id, uuid: characteristic.uuid, serviceUUID: serviceUUID, properties: properties,
            permissions: characteristic.permissions, extendedProperties: characteristic.extendedProperties,
            value: characteristic.value, declarationHandle: declarationHandle, valueHandle: valueHandle,
            cccdHandle: cccdHandle, sccdHandle: sccdHandle, endHandle: lastHandle))
    }

    /// Replaces the value of the characteristic `id` with fixed bytes (used for the Database Hash).
    mutating func setFixedValue(_ bytes: [UInt8], for id: CharacteristicID) {
        guard let index = characteristics.firstIndex(where: { $0.id == id }) else { return }
        let old = characteristics[index]
        let attributeIndex = Int(old.valueHandle) - 1
        let attribute = attributes[attributeIndex]
        attributes[attributeIndex] = Attribute(handle: attribute.handle, type: attribute.type,
                                               permissions: attribute.permissions, value: .fixed(bytes))
        characteristics[index] = DatabaseCharacteristic(
            id: old.id, uuid: old.uuid, serviceUUID: old.serviceUUID, properties: old.properties,
            permissions: old.permissions, extendedProperties: old.extendedProperties, value: .static(bytes),
            declarationHandle: old.declarationHandle, valueHandle: old.valueHandle,
            cccdHandle: old.cccdHandle, sccdHandle: old.sccdHandle, endHandle: old.endHandle)
    }
}
