/// A stable name for a characteristic that upper layers (ATT server, PeripheralManager, notification
/// engine) use instead of handles, which depend on the database layout.
public struct CharacteristicID: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    public let rawValue: String

    public init(_ rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }

    public var description: String { rawValue }

    // Identifiers of the built-in GAP and GATT service characteristics.
    public static let deviceName = CharacteristicID("gap.device-name")
    public static let appearance = CharacteristicID("gap.appearance")
    public static let peripheralPreferredConnectionParameters = CharacteristicID("gap.preferred-connection-parameters")
    public static let serviceChanged = CharacteristicID("gatt.service-changed")
    public static let clientSupportedFeatures = CharacteristicID("gatt.client-supported-features")
    public static let databaseHash = CharacteristicID("gatt.database-hash")
    public static let serverSupportedFeatures = CharacteristicID("gatt.server-supported-features")
}
