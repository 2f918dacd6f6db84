/// What the server allows on an attribute and which link security it demands (Core Vol 3 Part F 3.2.5).
/// Permissions are not sent over the air; the ATT server enforces them.
public struct AttributePermissions: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let readable = AttributePermissions(rawValue: 0x01)
    public static let writeable = AttributePermissions(rawValue: 0x02)
    public static let readEncryptionRequired = AttributePermissions(rawValue: 0x04)
    public static let writeEncryptionRequired = AttributePermissions(rawValue: 0x08)
    public static let readAuthenticationRequired = AttributePermissions(rawValue: 0x10)
    public static let writeAuthenticationRequired = AttributePermissions(rawValue: 0x20)

    static let readSecurity: AttributePermissions = [.readEncryptionRequired, .readAuthenticationRequired]
    static let writeSecurity: AttributePermissions = [.writeEncryptionRequired, .writeAuthenticationRequired]
}
