import BLECore

/// The Client Characteristic Configuration bits (Core Vol 3 Part G 3.3.3.3, Table 3.11).
public struct ClientConfiguration: OptionSet, Hashable, Sendable {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let notifications = ClientConfiguration(rawValue: 0x0001)
    public static let indications = ClientConfiguration(rawValue: 0x0002)

    /// Decodes the value a client writes; nil unless it is exactly two octets (the server then
    /// answers Invalid Attribute Value Length).
    public init?(littleEndian bytes: [UInt8]) {
        var reader = ByteReader(bytes)
        guard bytes.count == 2, let raw = try? reader.readUInt16() else { return nil }
        self.init(rawValue: raw)
    }

    public var littleEndianBytes: [UInt8] {
        [UInt8(truncatingIfNeeded: rawValue), UInt8(truncatingIfNeeded: rawValue >> 8)]
    }

    /// The bits a characteristic with `properties` may have set.
    public static func allowed(by properties: CharacteristicProperties) -> ClientConfiguration {
        var allowed: ClientConfiguration = []
        if properties.contains(.notify) { allowed.insert(.notifications) }
        if properties.contains(.indicate) { allowed.insert(.indications) }
        return allowed
    }
}
