import BLECore

/// Where an attribute's value lives, which tells the ATT server how to answer for it.
public enum AttributeValue: Hashable, Sendable {
    /// Known to the database: declarations, static characteristic values and static descriptors.
    case fixed([UInt8])
    /// A dynamic characteristic value: reads and writes go to the application.
    case characteristicValue(CharacteristicID)
    /// A dynamic descriptor (type given) of a characteristic: reads and writes go to the application.
    case descriptorValue(CharacteristicID, BluetoothUUID)
    /// The CCCD of a characteristic: per-connection state in `ClientConfigurationStore`.
    case clientCharacteristicConfiguration(CharacteristicID)
    /// The Server Characteristic Configuration of a broadcasting characteristic: server-wide state.
    case serverCharacteristicConfiguration(CharacteristicID)
    /// The Extended Properties descriptor.
    case extendedProperties(ExtendedProperties)

    /// The bytes when the database itself knows them.
    public var knownBytes: [UInt8]? {
        switch self {
        case let .fixed(bytes): return bytes
        case let .extendedProperties(flags): return flags.littleEndianBytes
        case .characteristicValue, .descriptorValue, .clientCharacteristicConfiguration,
             .serverCharacteristicConfiguration:
            return nil
        }
    }
}
