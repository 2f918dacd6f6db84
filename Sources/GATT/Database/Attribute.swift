import BLECore

/// One row of the attribute table (Core Vol 3 Part F 3.2).
public struct Attribute: Hashable, Sendable {
    public let handle: UInt16
    public let type: BluetoothUUID
    public let permissions: AttributePermissions
    public let value: AttributeValue

    public init(handle: UInt16, type: BluetoothUUID, permissions: AttributePermissions, value: AttributeValue) {
        self.handle = handle
        self.type = type
        self.permissions = permissions
        self.value = value
    }
}
