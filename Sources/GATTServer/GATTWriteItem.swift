import BLECore
import GATT

/// One write the application must apply; a batch is applied all-or-nothing.
public struct GATTWriteItem: Sendable, Equatable {
    public let characteristic: CharacteristicID
    /// nil: the characteristic value; otherwise the type of the dynamic descriptor.
    public let descriptor: BluetoothUUID?
    /// The complete new value (prepared writes are assembled by the server).
    public let value: [UInt8]

    public init(characteristic: CharacteristicID, descriptor: BluetoothUUID? = nil, value: [UInt8]) {
        self.characteristic = characteristic
        self.descriptor = descriptor
        self.value = value
    }
}

/// Which ATT procedure carried a write.
public enum GATTWriteKind: Sendable, Equatable {
    /// Write Request: the result is sent back as Write Response or Error Response.
    case request
    /// Write Command: no response exists, the result is ignored.
    case command
    /// Signed Write Command whose signature checked out; no response exists.
    case signedCommand
    /// Execute Write of the prepare queue: every item of the batch or none.
    case preparedExecution
}
