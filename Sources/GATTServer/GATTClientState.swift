import GATT

/// What a GATT server keeps for one client beyond a single PDU: the state that must outlive the
/// link for a bonded client (Core Vol 3 Part G 2.5.2.1, 3.3.3.3). The server only reports and
/// restores it; keeping it across connections is the caller's job.
public struct GATTClientState: Sendable, Equatable {
    /// Non-zero CCCD values by characteristic.
    public var configurations: [CharacteristicID: ClientConfiguration]
    /// Client Supported Features as written (one zero octet when never written).
    public var clientSupportedFeatures: [UInt8]
    /// Whether the client is change-aware; meaningful once it enabled robust caching.
    public var changeAware: Bool

    public init(configurations: [CharacteristicID: ClientConfiguration] = [:], clientSupportedFeatures: [UInt8] = [0x00],
                changeAware: Bool = true) {
        self.configurations = configurations
        self.clientSupportedFeatures = clientSupportedFeatures
        self.changeAware = changeAware
    }
}
