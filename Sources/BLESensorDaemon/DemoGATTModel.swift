import BLECore
import GATT

/// A primary service found by discovery, with its characteristics once they are discovered.
struct DiscoveredService: Sendable, Equatable {
    var uuid: BluetoothUUID
    var startHandle: UInt16
    var endHandle: UInt16
    var characteristics: [DiscoveredCharacteristic] = []
}

/// A characteristic declaration, the value handle it names, and its descriptors.
struct DiscoveredCharacteristic: Sendable, Equatable {
    var uuid: BluetoothUUID
    var declarationHandle: UInt16
    var valueHandle: UInt16
    var properties: CharacteristicProperties
    /// The last handle that belongs to this characteristic (descriptors live up to here).
    var endHandle: UInt16
    var descriptors: [DiscoveredDescriptor] = []

    var clientConfigurationHandle: UInt16? {
        descriptors.first { $0.uuid == GATTUUID.clientCharacteristicConfiguration }?.handle
    }
}

struct DiscoveredDescriptor: Sendable, Equatable {
    var handle: UInt16
    var uuid: BluetoothUUID
}

/// A value the server pushed.
struct GATTValueUpdate: Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        case notification
        /// Already confirmed by the client when delivered.
        case indication
    }

    var valueHandle: UInt16
    var value: [UInt8]
    var kind: Kind
}

/// Client Characteristic Configuration values (Core spec Vol 3 Part G 3.3.3.3).
enum ClientConfiguration: UInt16, Sendable {
    case notifications = 0x0001
    case indications = 0x0002

    var bytes: [UInt8] { [UInt8(truncatingIfNeeded: rawValue), UInt8(truncatingIfNeeded: rawValue >> 8)] }
}
