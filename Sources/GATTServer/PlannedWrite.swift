import GATT

/// A validated write, not applied yet: batches are checked as a whole before anything changes.
enum PlannedWrite: Sendable {
    /// A dynamic value or descriptor the application stores.
    case application(handle: UInt16, GATTWriteItem)
    /// A CCCD of this link.
    case clientConfiguration(handle: UInt16, CharacteristicID, ClientConfiguration)
    /// Client Supported Features of this link.
    case clientFeatures(handle: UInt16, [UInt8])
    /// A server-wide SCCD.
    case serverConfiguration(handle: UInt16, CharacteristicID, UInt16)

    var handle: UInt16 {
        switch self {
        case let .application(handle, _), let .clientConfiguration(handle, _, _),
             let .clientFeatures(handle, _), let .serverConfiguration(handle, _, _):
            return handle
        }
    }
}
