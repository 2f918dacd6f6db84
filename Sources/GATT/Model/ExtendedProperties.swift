/// The Characteristic Extended Properties bit field (Core Vol 3 Part G 3.3.3.1, Table 3.10).
public struct ExtendedProperties: OptionSet, Hashable, Sendable {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// Queued (prepare/execute) writes of the value are allowed.
    public static let reliableWrite = ExtendedProperties(rawValue: 0x0001)
    /// The Characteristic User Description descriptor is writeable.
    public static let writableAuxiliaries = ExtendedProperties(rawValue: 0x0002)

    /// The descriptor value on the wire: 2 octets, little-endian.
    public var littleEndianBytes: [UInt8] {
        [UInt8(truncatingIfNeeded: rawValue), UInt8(truncatingIfNeeded: rawValue >> 8)]
    }
}
