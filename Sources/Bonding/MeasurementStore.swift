import BLECore
import Foundation

/// The store-and-forward queue: measurements taken while a bonded peer was away, kept until it
/// confirms them. Apart from `BondStore` because only the daemon's forwarder needs it; a store
/// that is both keeps a peer's measurements with its bond and drops them with it.
///
/// Measurements belong to a bond: identities are looked up by `DeviceAddress.bondIdentity`, writes
/// for a peer without a bond throw `.notBonded`, and reads return nothing pending.
public protocol MeasurementStore: Sendable {
    /// Keeps a measurement for a disconnected bonded peer; at most `limit` (≥ 1) per peer and handle, the oldest
    /// dropped first and counted. Returns the sequence.
    func enqueueMeasurement(
        valueHandle: UInt16, value: [UInt8], takenAt: Date, for identity: DeviceAddress, limit: Int
    ) async throws(BondStoreError) -> Int64
    /// The same measurement for several away peers, in one write (one sync to disk, not one per
    /// peer); returns the identities that have no bond (skipped: removed since the list was made).
    func enqueueMeasurement(
        valueHandle: UInt16, value: [UInt8], takenAt: Date, for identities: [DeviceAddress], limit: Int
    ) async throws(BondStoreError) -> [DeviceAddress]
    /// Nothing pending when there is no bond.
    func pendingMeasurements(for identity: DeviceAddress) async throws(BondStoreError) -> PendingMeasurements
    /// The peer confirmed (indication acknowledged) everything up to and including `sequence`; also resets the
    /// dropped count.
    func acknowledgeMeasurements(through sequence: Int64, for identity: DeviceAddress) async throws(BondStoreError)
}

extension MeasurementStore {
    /// One write per peer, for stores where a write costs no sync.
    public func enqueueMeasurement(
        valueHandle: UInt16, value: [UInt8], takenAt: Date, for identities: [DeviceAddress], limit: Int
    ) async throws(BondStoreError) -> [DeviceAddress] {
        var unbonded: [DeviceAddress] = []
        for identity in identities {
            do throws(BondStoreError) {
                _ = try await enqueueMeasurement(valueHandle: valueHandle, value: value, takenAt: takenAt, for: identity, limit: limit)
            } catch .notBonded {
                unbonded.append(identity)
            }
        }
        return unbonded
    }
}
