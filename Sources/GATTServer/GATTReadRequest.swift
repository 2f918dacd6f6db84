import BLECore
import GATT
import HCI

/// A read of a dynamic characteristic value or dynamic descriptor that the application answers.
public struct GATTReadRequest: Sendable, Equatable {
    public let link: Link
    public let characteristic: CharacteristicID
    /// nil: the characteristic value; otherwise the type of the dynamic descriptor.
    public let descriptor: BluetoothUUID?

    public init(link: Link, characteristic: CharacteristicID, descriptor: BluetoothUUID? = nil) {
        self.link = link
        self.characteristic = characteristic
        self.descriptor = descriptor
    }
}
