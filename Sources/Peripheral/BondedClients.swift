import BLECore
import Bonding
import GATT
import HCI
import Synchronization

/// The GATT state of bonded centrals (Core Vol 3 Part G 3.3.3.3, 2.5.2.1), mirrored in memory so
/// nothing on the update or ATT paths waits for the bond store; every change is also written
/// through to the store by a `BondStoreWriter`, in order.
///
/// A central's state is *live* while one of its links is encrypted with the bond (restored after
/// encryption, or bonded on it): only then are its writes kept beyond the link, since before
/// encryption anyone can claim a bonded central's address. Otherwise it is *away*: its stored
/// subscriptions collect "changed while away" flags.
final class BondedClients: Sendable {
    struct State {
        var peers: [DeviceAddress: PeerGATTState] = [:]
        var live: [LinkID: DeviceAddress] = [:]
    }

    private let state = Mutex(State())
    let writer: BondStoreWriter

    init(writer: BondStoreWriter) { self.writer = writer }

    func load(_ peers: [DeviceAddress: PeerGATTState]) {
        state.withLock { $0.peers.merge(peers) { current, _ in current } }
    }

    func storedState(of identity: DeviceAddress) -> PeerGATTState? {
        state.withLock { $0.peers[identity.bondIdentity] }
    }

    /// Makes `link` live for `identity`; returns the state to restore, nil when the link already was.
    func beginRestore(_ link: LinkID, identity: DeviceAddress) -> PeerGATTState? {
        state.withLock { state in
            guard state.live[link] == nil else { return nil }
            state.live[link] = identity.bondIdentity
            return state.peers[identity.bondIdentity] ?? .empty
        }
    }

    /// `link` just bonded as `identity`, with `current` as its state: live from now on, and saved.
    func bonded(_ link: LinkID, identity: DeviceAddress, current: PeerGATTState) {
        state.withLock { state in
            state.live[link] = identity.bondIdentity
            state.peers[identity.bondIdentity] = current
        }
        writer.enqueue(.save(current, identity: identity.bondIdentity))
    }

    func liveIdentity(of link: LinkID) -> DeviceAddress? {
        state.withLock { $0.live[link] }
    }

    /// A live link's whole state changed (restored, features, awareness, database): kept and saved.
    func saveLive(_ link: LinkID, _ current: PeerGATTState) {
        let identity = state.withLock { state -> DeviceAddress? in
            guard let identity = state.live[link] else { return nil }
            state.peers[identity] = current
            return identity
        }
        if let identity { writer.enqueue(.save(current, identity: identity)) }
    }

    /// A live link's CCCD changed; written only when it differs from what the store has, so a
    /// restored subscription costs no write.
    func subscriptionWritten(_ link: LinkID, cccdHandle: UInt16, value: UInt16) {
        let identity = state.withLock { state -> DeviceAddress? in
            guard let identity = state.live[link], state.peers[identity]?.cccds[cccdHandle] ?? 0 != value else { return nil }
            state.peers[identity, default: .empty].cccds[cccdHandle] = value == 0 ? nil : value
            return identity
        }
        if let identity { writer.enqueue(.setCCCD(handle: cccdHandle, value: value, identity: identity)) }
    }

    /// Flags `valueHandle` for the away centrals not flagged yet; one store write for all of them.
    func markChanged(valueHandle: UInt16, for identities: [DeviceAddress]) {
        let marked = state.withLock { state in
            identities.filter { identity in
                guard state.peers[identity] != nil, !state.live.values.contains(identity) else { return false }
                return state.peers[identity]?.changedWhileAway.insert(valueHandle).inserted ?? false
            }
        }
        if !marked.isEmpty { writer.enqueue(.markChanged(valueHandle: valueHandle, identities: marked)) }
    }

    /// The link closed; true when it was live (its central is away from now on).
    func linkClosed(_ link: LinkID) -> Bool {
        state.withLock { $0.live.removeValue(forKey: link) != nil }
    }

    func bondRemoved(_ identity: DeviceAddress) {
        state.withLock { state in
            state.peers[identity.bondIdentity] = nil
            state.live = state.live.filter { $0.value != identity.bondIdentity }
        }
    }

    /// For each characteristic, the away centrals subscribed to it in `database` whose flag is not
    /// set yet. Stored handles mean something only in the database they were written for.
    func awayRoutes(in database: AttributeDatabase) -> [CharacteristicID: [DeviceAddress]] {
        let (peers, live) = state.withLock { ($0.peers, Set($0.live.values)) }
        var routes: [CharacteristicID: [DeviceAddress]] = [:]
        for (identity, peer) in peers where !live.contains(identity) && peer.databaseHash == database.databaseHash {
            for characteristic in database.characteristics {
                guard let cccd = characteristic.cccdHandle, (peer.cccds[cccd] ?? 0) & 0x0003 != 0,
                      !peer.changedWhileAway.contains(characteristic.valueHandle) else { continue }
                routes[characteristic.id, default: []].append(identity)
            }
        }
        return routes
    }
}
