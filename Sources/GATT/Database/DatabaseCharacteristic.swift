import BLECore

/// A characteristic once laid out: what the ATT server and the notification engine need to know.
public struct DatabaseCharacteristic: Hashable, Sendable {
    public let id: CharacteristicID
    public let uuid: BluetoothUUID
    public let serviceUUID: BluetoothUUID
    /// As declared, with the extended-properties bit set when flags exist.
    public let properties: CharacteristicProperties
    public let permissions: AttributePermissions
    public let extendedProperties: ExtendedProperties
    public let value: GATTValue
    public let declarationHandle: UInt16
    public let valueHandle: UInt16
    public let cccdHandle: UInt16?
    public let sccdHandle: UInt16?
    /// The last handle of the characteristic definition (its last descriptor, or the value).
    public let endHandle: UInt16
}
