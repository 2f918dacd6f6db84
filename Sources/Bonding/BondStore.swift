import BLECore
import Foundation

/// Where bonds and the state that must outlive a connection are kept: keys, our identity and each
/// bonded peer's GATT state. Measurements kept for away peers are a `MeasurementStore`'s.
///
/// Identities are looked up by `DeviceAddress.bondIdentity`, so `.publicIdentity` finds a bond saved as
/// `.publicDevice` and the other way round. Operations on one peer's state throw `.notBonded` when there is
/// no bond; reads return nil.
public protocol BondStore: Sendable {
    /// Our own identity, created once with `make` and kept forever after.
    func localIdentity(creating make: @Sendable () -> LocalIdentity) async throws(BondStoreError) -> LocalIdentity
    /// Sorted by lastSeen, newest first.
    func bonds() async throws(BondStoreError) -> [Bond]
    func bond(for identity: DeviceAddress) async throws(BondStoreError) -> Bond?
    /// A completed pairing, in ONE transaction: removes the bond of `replacing` (if given and different) and any
    /// bond of bond.identity, inserts `bond`, and sets its GATT state to `gattState` (CCCDs written during the
    /// pairing connection). Throws `.full` when the store is at its bound and nothing is replaced.
    func saveBond(_ bond: Bond, gattState: PeerGATTState, replacing: DeviceAddress?) async throws(BondStoreError)
    /// Removes the bond with its GATT state (and, in a store that is also a `MeasurementStore`, its stored
    /// measurements); false if there was none.
    func removeBond(_ identity: DeviceAddress) async throws(BondStoreError) -> Bool
    func touch(_ identity: DeviceAddress, at: Date) async throws(BondStoreError)
    /// Stores the counter as given: the caller checks it increases before accepting a signed write.
    func updatePeerSignCounter(_ counter: UInt32, for identity: DeviceAddress) async throws(BondStoreError)
    func updateLocalSignCounter(_ counter: UInt32, for identity: DeviceAddress) async throws(BondStoreError)
    /// Nil when there is no bond.
    func gattState(for identity: DeviceAddress) async throws(BondStoreError) -> PeerGATTState?
    /// Value 0 removes the row.
    func setCCCD(handle: UInt16, value: UInt16, for identity: DeviceAddress) async throws(BondStoreError)
    /// Replaces the whole state, CCCDs and changed-while-away set included.
    func saveGATTState(_ state: PeerGATTState, for identity: DeviceAddress) async throws(BondStoreError)
    /// Marks a characteristic changed for each of these bonded peers (those not connected); identities without
    /// a bond are skipped, since a bond may be removed while the caller builds the list.
    func markChangedWhileAway(valueHandle: UInt16, for identities: [DeviceAddress]) async throws(BondStoreError)
    func clearChangedWhileAway(for identity: DeviceAddress) async throws(BondStoreError)
}

extension BondStore {
    public func count() async throws(BondStoreError) -> Int {
        try await bonds().count
    }

    /// The bond to give up when the store is full: the one seen longest ago, other than `excluding`.
    public func leastRecentlyUsed(excluding: Set<DeviceAddress> = []) async throws(BondStoreError) -> Bond? {
        let excluded = Set(excluding.map(\.bondIdentity))
        return try await bonds().last { !excluded.contains($0.identity) }
    }
}

extension Bond {
    /// The order `bonds()` returns: newest lastSeen first, ties by address so the order is stable.
    public static func newestFirst(_ a: Bond, _ b: Bond) -> Bool {
        if a.lastSeen != b.lastSeen { return a.lastSeen > b.lastSeen }
        return (a.identity.address.description, a.identity.type.rawValue)
            < (b.identity.address.description, b.identity.type.rawValue)
    }
}

public enum BondStoreLimits {
    /// Bonds a store keeps unless told otherwise: well above what one sensor is paired with, small enough that
    /// forgotten phones do not pile up; `saveBond(replacing:)` makes room.
    public static let defaultMaximumBonds = 32
}
