import BLECore
import GATT

/// A read of a dynamic characteristic value or dynamic descriptor that the application answers.
public struct GATTReadRequest: Sendable, Equatable {
    public let connection: UInt16
    public let characteristic: CharacteristicID
    /// nil: the characteristic value; otherwise the type of the dynamic descriptor.
    public let descriptor: BluetoothUUID?

    public init(connection: UInt16, characteristic: CharacteristicID, descriptor: BluetoothUUID? = nil) {
        self.connection = connection
        self.characteristic = characteristic
        self.descriptor = descriptor
    }
}
