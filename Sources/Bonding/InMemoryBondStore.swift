import BLECore
import Foundation

/// A `BondStore` and `MeasurementStore` that forgets everything when released, with the same semantics as the
/// persistent one: for tests and for running without a bond database.
public actor InMemoryBondStore: BondStore {
    private struct Entry {
        var bond: Bond
        var gatt: PeerGATTState
        var measurements: [StoredMeasurement] = []
        var dropped = 0
    }

    public let maximumBonds: Int
    private var local: LocalIdentity?
    private var entries: [DeviceAddress: Entry] = [:]
    private var lastSequence: Int64 = 0

    public init(maximumBonds: Int = BondStoreLimits.defaultMaximumBonds) {
        self.maximumBonds = maximumBonds
    }

    public func localIdentity(creating make: @Sendable () -> LocalIdentity) -> LocalIdentity {
        if let local { return local }
        let made = make()
        local = made
        return made
    }

    public func bonds() -> [Bond] {
        entries.values.map(\.bond).sorted(by: Bond.newestFirst)
    }

    public func bond(for identity: DeviceAddress) -> Bond? {
        entries[identity.bondIdentity]?.bond
    }

    public func saveBond(_ bond: Bond, gattState: PeerGATTState, replacing: DeviceAddress?) throws(BondStoreError) {
        let bond = try bond.validated()
        let gattState = try gattState.validated()
        var updated = entries
        if let replacing { updated[replacing.bondIdentity] = nil }
        updated[bond.identity] = nil
        guard updated.count < maximumBonds else { throw .full(max: maximumBonds) }
        updated[bond.identity] = Entry(bond: bond, gatt: gattState)
        entries = updated
    }

    public func removeBond(_ identity: DeviceAddress) -> Bool {
        entries.removeValue(forKey: identity.bondIdentity) != nil
    }

    public func touch(_ identity: DeviceAddress, at date: Date) throws(BondStoreError) {
        try update(identity) { $0.bond.lastSeen = date }
    }

    public func updatePeerSignCounter(_ counter: UInt32, for identity: DeviceAddress) throws(BondStoreError) {
        try update(identity) { $0.bond.peerSignCounter = counter }
    }

    public func updateLocalSignCounter(_ counter: UInt32, for identity: DeviceAddress) throws(BondStoreError) {
        try update(identity) { $0.bond.localSignCounter = counter }
    }

    public func gattState(for identity: DeviceAddress) -> PeerGATTState? {
        entries[identity.bondIdentity]?.gatt
    }

    public func setCCCD(handle: UInt16, value: UInt16, for identity: DeviceAddress) throws(BondStoreError) {
        try update(identity) { $0.gatt.cccds[handle] = value == 0 ? nil : value }
    }

    public func saveGATTState(_ state: PeerGATTState, for identity: DeviceAddress) throws(BondStoreError) {
        let state = try state.validated()
        try update(identity) { $0.gatt = state }
    }

    public func markChangedWhileAway(valueHandle: UInt16, for identities: [DeviceAddress]) {
        for identity in identities {
            entries[identity.bondIdentity]?.gatt.changedWhileAway.insert(valueHandle)
        }
    }

    public func clearChangedWhileAway(for identity: DeviceAddress) throws(BondStoreError) {
        try update(identity) { $0.gatt.changedWhileAway = [] }
    }

    private func update(_ identity: DeviceAddress, _ change: (inout Entry) -> Void) throws(BondStoreError) {
        let key = identity.bondIdentity
        guard var entry = entries[key] else { throw .notBonded(key) }
        change(&entry)
        entries[key] = entry
    }
}

extension InMemoryBondStore: MeasurementStore {
    public func enqueueMeasurement(
        valueHandle: UInt16, value: [UInt8], takenAt: Date, for identity: DeviceAddress, limit: Int
    ) throws(BondStoreError) -> Int64 {
        guard limit >= 1 else { throw .invalidArgument("a measurement limit of \(limit) keeps nothing; it must be at least 1") }
        let sequence = lastSequence + 1
        try update(identity) { entry in
            entry.measurements.append(StoredMeasurement(sequence: sequence, valueHandle: valueHandle, value: value, takenAt: takenAt))
            let excess = entry.measurements.count { $0.valueHandle == valueHandle } - limit
            guard excess > 0 else { return }
            let oldest = Set(entry.measurements.filter { $0.valueHandle == valueHandle }.prefix(excess).map(\.sequence))
            entry.measurements.removeAll { oldest.contains($0.sequence) }
            entry.dropped += excess
        }
        lastSequence = sequence
        return sequence
    }

    public func pendingMeasurements(for identity: DeviceAddress) -> PendingMeasurements {
        guard let entry = entries[identity.bondIdentity] else { return .none }
        return PendingMeasurements(measurements: entry.measurements, dropped: entry.dropped)
    }

    public func acknowledgeMeasurements(through sequence: Int64, for identity: DeviceAddress) throws(BondStoreError) {
        try update(identity) { entry in
            entry.measurements.removeAll { $0.sequence <= sequence }
            entry.dropped = 0
        }
    }
}
