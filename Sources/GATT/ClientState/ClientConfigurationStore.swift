/// CCCD values per (peer, characteristic), plus "changed while away" flags for bonded peers that
/// are not connected: when such a peer returns, the server owes it an update for those characteristics.
///
/// `Peer` is whatever identifies a client to the caller: a connection handle for unbonded links,
/// an identity address for bonded ones. Values are checked against the database the store was made for.
public struct ClientConfigurationStore<Peer: Hashable & Sendable>: Sendable {
    /// Allowed CCCD bits of every characteristic that has a CCCD.
    private let allowedBits: [CharacteristicID: ClientConfiguration]
    private var configurations: [Peer: [CharacteristicID: ClientConfiguration]] = [:]
    private var absentPeers: Set<Peer> = []
    private var changedWhileAway: [Peer: Set<CharacteristicID>] = [:]

    public init(database: AttributeDatabase) {
        var allowed: [CharacteristicID: ClientConfiguration] = [:]
        for characteristic in database.characteristics where characteristic.cccdHandle != nil {
            allowed[characteristic.id] = ClientConfiguration.allowed(by: characteristic.properties)
        }
        allowedBits = allowed
    }

    /// The CCCD value `peer` reads; zero when never written (the default of Core Vol 3 Part G 3.3.3.3).
    public func configuration(of id: CharacteristicID, for peer: Peer) -> ClientConfiguration {
        configurations[peer]?[id] ?? []
    }

    public mutating func write(_ rawValue: UInt16, to id: CharacteristicID, for peer: Peer) -> ClientConfigurationWriteResult {
        guard let allowed = allowedBits[id] else { return .unknownCharacteristic(id) }
        let requested = ClientConfiguration(rawValue: rawValue)
        guard allowed.isSuperset(of: requested) else {
            return .improperlyConfigured(requested: rawValue, allowed: allowed)
        }
        let previous = configuration(of: id, for: peer)
        if previous == requested { return .unchanged(requested) }
        if requested.isEmpty {
            configurations[peer]?[id] = nil
            if configurations[peer]?.isEmpty == true { configurations[peer] = nil }
        } else {
            configurations[peer, default: [:]][id] = requested
        }
        return .updated(previous: previous, current: requested)
    }

    /// Every non-zero CCCD value `peer` has, by characteristic.
    public func configurations(for peer: Peer) -> [CharacteristicID: ClientConfiguration] {
        configurations[peer] ?? [:]
    }

    /// Connected peers subscribed to `id` with at least one of `modes`.
    public func subscribers(of id: CharacteristicID, modes: ClientConfiguration = [.notifications, .indications]) -> [Peer: ClientConfiguration] {
        var result: [Peer: ClientConfiguration] = [:]
        for (peer, values) in configurations where !absentPeers.contains(peer) {
            if let value = values[id], !value.isDisjoint(with: modes) { result[peer] = value }
        }
        return result
    }

    /// The link to `peer` ended. A bonded peer keeps its configuration (Core Vol 3 Part G 3.3.3.3:
    /// persistent across connections for bonded devices) and starts collecting change flags;
    /// an unbonded one is forgotten.
    public mutating func peerDisconnected(_ peer: Peer, bonded: Bool) {
        if bonded, configurations[peer] != nil {
            absentPeers.insert(peer)
        } else {
            forget(peer)
        }
    }

    /// The value of `id` changed; absent bonded peers subscribed to it are flagged.
    public mutating func valueChanged(_ id: CharacteristicID) {
        for peer in absentPeers where !(configurations[peer]?[id] ?? []).isEmpty {
            changedWhileAway[peer, default: []].insert(id)
        }
    }

    public func isAbsent(_ peer: Peer) -> Bool { absentPeers.contains(peer) }

    /// `peer` is connected again; returns the characteristics it should be updated about and clears them.
    public mutating func peerReconnected(_ peer: Peer) -> Set<CharacteristicID> {
        absentPeers.remove(peer)
        return changedWhileAway.removeValue(forKey: peer) ?? []
    }

    /// This store moved to `database` (a service was added or removed after publication): values of
    /// characteristics that still exist there with a CCCD are kept, narrowed to the bits their
    /// properties now allow; values and change flags of characteristics that are gone are dropped.
    public func carriedOver(to database: AttributeDatabase) -> ClientConfigurationStore {
        var moved = ClientConfigurationStore(database: database)
        let allowed = moved.allowedBits
        for (peer, values) in configurations {
            var kept: [CharacteristicID: ClientConfiguration] = [:]
            for (id, value) in values {
                guard let bits = allowed[id] else { continue }
                let narrowed = value.intersection(bits)
                if !narrowed.isEmpty { kept[id] = narrowed }
            }
            if !kept.isEmpty { moved.configurations[peer] = kept }
        }
        moved.absentPeers = absentPeers.filter { moved.configurations[$0] != nil }
        for (peer, flags) in changedWhileAway where moved.absentPeers.contains(peer) {
            let kept = flags.filter { allowed[$0] != nil }
            if !kept.isEmpty { moved.changedWhileAway[peer] = kept }
        }
        return moved
    }

    /// Drops every trace of `peer` (unbonded disconnect, or bond removed).
    public mutating func forget(_ peer: Peer) {
        configurations[peer] = nil
        absentPeers.remove(peer)
        changedWhileAway[peer] = nil
    }
}
