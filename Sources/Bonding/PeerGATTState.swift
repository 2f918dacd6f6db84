/// GATT state the server keeps per bonded client (Core Vol 3 Part G 2.5.2.1, 3.3.3.3): survives reconnection.
public struct PeerGATTState: Sendable, Equatable {
    /// CCCD attribute handle -> value; a value of 0 is never stored.
    public var cccds: [UInt16: UInt16]
    public var clientSupportedFeatures: [UInt8]
    public var changeAware: Bool
    /// The database the handles refer to.
    public var databaseHash: [UInt8]?
    /// Characteristic value handles whose value changed while the peer was disconnected.
    public var changedWhileAway: Set<UInt16>

    public init(
        cccds: [UInt16: UInt16] = [:], clientSupportedFeatures: [UInt8] = [], changeAware: Bool = true,
        databaseHash: [UInt8]? = nil, changedWhileAway: Set<UInt16> = []
    ) {
        self.cccds = cccds
        self.clientSupportedFeatures = clientSupportedFeatures
        self.changeAware = changeAware
        self.databaseHash = databaseHash
        self.changedWhileAway = changedWhileAway
    }

    /// A client without stored state is change-aware (Core Vol 3 Part G 2.5.2.1).
    public static let empty = PeerGATTState()

    /// The checks both stores make before saving; the result has zero-valued CCCDs dropped, as stores keep them.
    public func validated() throws(BondStoreError) -> PeerGATTState {
        if let databaseHash, databaseHash.count != 16 {
            throw .invalidArgument("a database hash has 16 octets, not \(databaseHash.count)")
        }
        var state = self
        state.cccds = cccds.filter { $0.value != 0 }
        return state
    }
}
