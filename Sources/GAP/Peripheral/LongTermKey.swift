import HCI

/// A long-term key offered for an encryption request, with what it is worth (how it was made).
public struct LongTermKey: Sendable, Equatable {
    /// 16 octets, least significant first, as LE Long Term Key Request Reply carries it.
    public var value: [UInt8]
    public var properties: EncryptionKeyProperties

    public init(value: [UInt8], properties: EncryptionKeyProperties) {
        self.value = value
        self.properties = properties
    }
}
