import BLECore

/// A service as the application declares it.
public struct GATTService: Hashable, Sendable {
    public var uuid: BluetoothUUID
    public var isPrimary: Bool
    /// UUIDs of other services in the same database that this one includes.
    public var includedServices: [BluetoothUUID]
    public var characteristics: [GATTCharacteristic]

    public init(
        uuid: BluetoothUUID,
        isPrimary: Bool = true,
        includedServices: [BluetoothUUID] = [],
        characteristics: [GATTCharacteristic] = []
    ) {
        self.uuid = uuid
        self.isPrimary = isPrimary
        self.includedServices = includedServices
        self.characteristics = characteristics
    }

    /// Number of attributes the service occupies once laid out.
    var attributeCount: Int {
        1 + includedServices.count + characteristics.reduce(0) { total, characteristic in
            total + 2 + LayoutPlan.generatedDescriptorCount(characteristic) + characteristic.descriptors.count
        }
    }
}
