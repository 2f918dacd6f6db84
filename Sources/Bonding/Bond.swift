import BLECore
import Foundation

/// An encryption key with the values that identify it (Core Vol 3 Part H 2.4.2.3, 3.6.2, 3.6.3).
public struct LongTermKeyRecord: Sendable, Equatable {
    public var key: Key128
    public var ediv: UInt16
    public var rand: UInt64
    /// The negotiated encryption key size in octets, 7...16.
    public var keySize: Int
    /// Paired with MITM protection.
    public var authenticated: Bool
    public var secureConnections: Bool

    public static let keySizes: ClosedRange<Int> = 7...16

    public init(key: Key128, ediv: UInt16, rand: UInt64, keySize: Int, authenticated: Bool, secureConnections: Bool) {
        self.key = key
        self.ediv = ediv
        self.rand = rand
        self.keySize = keySize
        self.authenticated = authenticated
        self.secureConnections = secureConnections
    }
}

/// What a completed bonding leaves behind for one peer.
public struct Bond: Sendable, Equatable {
    /// The peer's identity address (public, or random static). Stores keep `.publicIdentity` and
    /// `.randomIdentity` as `.publicDevice` and `.randomDevice` (see `DeviceAddress.bondIdentity`).
    public var identity: DeviceAddress
    /// The key the peer encrypts with when it is central (SC LTK with ediv 0 rand 0, or the legacy key we
    /// distributed). Nil only for a legacy bond made as central where the peripheral took no key from us.
    public var ltk: LongTermKeyRecord?
    /// A legacy key the peer distributed (for when we are central).
    public var peerLTK: LongTermKeyRecord?
    public var peerIRK: Key128?
    public var peerCSRK: Key128?
    /// The last accepted signed-write counter.
    public var peerSignCounter: UInt32?
    public var localCSRK: Key128?
    public var localSignCounter: UInt32
    public var createdAt: Date
    public var lastSeen: Date

    public init(
        identity: DeviceAddress, ltk: LongTermKeyRecord?, peerLTK: LongTermKeyRecord? = nil,
        peerIRK: Key128? = nil, peerCSRK: Key128? = nil, peerSignCounter: UInt32? = nil,
        localCSRK: Key128? = nil, localSignCounter: UInt32 = 0, createdAt: Date, lastSeen: Date
    ) {
        self.identity = identity
        self.ltk = ltk
        self.peerLTK = peerLTK
        self.peerIRK = peerIRK
        self.peerCSRK = peerCSRK
        self.peerSignCounter = peerSignCounter
        self.localCSRK = localCSRK
        self.localSignCounter = localSignCounter
        self.createdAt = createdAt
        self.lastSeen = lastSeen
    }

    /// The key we encrypt with when we are central: the LE Secure Connections LTK (the same both
    /// ways, EDIV and Rand zero) or the legacy key the peripheral distributed.
    public var keyAsCentral: LongTermKeyRecord? {
        if let ltk, ltk.secureConnections { return ltk }
        return peerLTK
    }

    /// What the bond's key is worth (the keys of one pairing share it).
    public var keyProperties: LongTermKeyRecord? { ltk ?? peerLTK }

    /// The checks both stores make before saving, so they reject the same bonds with the same error.
    public func validated() throws(BondStoreError) -> Bond {
        guard ltk != nil || peerLTK != nil else { throw .invalidArgument("a bond needs a long-term key") }
        for record in [ltk, peerLTK].compactMap({ $0 }) where !LongTermKeyRecord.keySizes.contains(record.keySize) {
            throw .invalidArgument("a long-term key size of \(record.keySize) octets is outside 7...16")
        }
        var bond = self
        bond.identity = identity.bondIdentity
        return bond
    }
}

/// Our own keys and address, created once and kept for the life of the device.
public struct LocalIdentity: Sendable, Equatable {
    public var irk: Key128
    /// A random static address.
    public var address: BluetoothAddress
    public var csrk: Key128

    public init(irk: Key128, address: BluetoothAddress, csrk: Key128) {
        self.irk = irk
        self.address = address
        self.csrk = csrk
    }
}

extension DeviceAddress {
    /// The form a bond is keyed by: a controller reports a peer it resolved as `.publicIdentity` or
    /// `.randomIdentity`, SMP's Identity Address Information as public or random; both name the same bond.
    public var bondIdentity: DeviceAddress {
        switch type {
        case .publicDevice, .publicIdentity: return DeviceAddress(address, type: .publicDevice)
        case .randomDevice, .randomIdentity: return DeviceAddress(address, type: .randomDevice)
        }
    }
}
