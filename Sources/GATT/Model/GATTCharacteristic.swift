import BLECore

/// A characteristic as the application declares it; the database turns it into a declaration,
/// a value attribute and descriptors.
public struct GATTCharacteristic: Hashable, Sendable {
    /// `nil` lets the builder derive "SERVICE/CHARACTERISTIC" (with "#n" for repeated UUIDs).
    public var id: CharacteristicID?
    public var uuid: BluetoothUUID
    public var properties: CharacteristicProperties
    public var permissions: AttributePermissions
    public var value: GATTValue
    /// Non-empty flags set the extended-properties bit and generate the 0x2900 descriptor.
    public var extendedProperties: ExtendedProperties
    public var descriptors: [GATTDescriptor]

    public init(
        id: CharacteristicID? = nil,
        uuid: BluetoothUUID,
        properties: CharacteristicProperties,
        permissions: AttributePermissions,
        value: GATTValue = .dynamic,
        extendedProperties: ExtendedProperties = [],
        descriptors: [GATTDescriptor] = []
    ) {
        self.id = id
        self.uuid = uuid
        self.properties = properties
        self.permissions = permissions
        self.value = value
        self.extendedProperties = extendedProperties
        self.descriptors = descriptors
    }

    /// The properties octet as declared: the extended-properties bit is implied by the flags.
    public var declaredProperties: CharacteristicProperties {
        extendedProperties.isEmpty ? properties : properties.union(.extendedProperties)
    }
}
