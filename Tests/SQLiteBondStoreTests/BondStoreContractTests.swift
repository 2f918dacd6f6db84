import BLECore
import Bonding
import Foundation
import Testing

/// The BondStore and MeasurementStore protocols' semantics, on the in-memory and the SQLite store alike.
@Suite struct BondStoreContractTests {
    @Test(arguments: StoreKind.allCases) func localIdentityIsCreatedOnce(kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let store = try kind.make(in: directory)
        #expect(try await store.localIdentity { Sample.localIdentity } == Sample.localIdentity)
        let other = LocalIdentity(irk: Sample.key(9), address: .zero, csrk: Sample.key(9))
        #expect(try await store.localIdentity { other } == Sample.localIdentity)
    }

    @Test(arguments: StoreKind.allCases) func bondsRoundTripEveryField(kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let store = try kind.make(in: directory)
        let full = Sample.bond(1, rand: UInt64(Int64.max) + 1)
        let minimal = Sample.minimalBond(2)
        try await store.saveBond(full, gattState: .empty, replacing: nil)
        try await store.saveBond(minimal, gattState: .empty, replacing: nil)
        #expect(try await store.bond(for: full.identity) == full)
        #expect(try await store.bond(for: minimal.identity) == minimal)
        #expect(try await store.bond(for: Sample.identity(3)) == nil)
        // The same address with the other type is another device.
        #expect(try await store.bond(for: DeviceAddress(full.identity.address, type: .randomDevice)) == nil)
    }

    @Test(arguments: StoreKind.allCases, [UInt64.max, UInt64(Int64.max) + 1, UInt64(Int64.max), 0, 1])
    func randIsKeptLosslessly(kind: StoreKind, rand: UInt64) async throws {
        let directory = TemporaryDirectory()
        let store = try kind.make(in: directory)
        try await store.saveBond(Sample.bond(1, rand: rand), gattState: .empty, replacing: nil)
        #expect(try await store.bond(for: Sample.identity(1))?.ltk?.rand == rand)
    }

    @Test(arguments: StoreKind.allCases) func controllerResolvedTypesFindTheBond(kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let store = try kind.make(in: directory)
        var bond = Sample.minimalBond(1)
        bond.identity = Sample.identity(1, type: .randomIdentity)
        try await store.saveBond(bond, gattState: .empty, replacing: nil)
        let stored = try #require(try await store.bond(for: Sample.identity(1, type: .randomDevice)))
        #expect(stored.identity.type == .randomDevice)
        #expect(try await store.bond(for: Sample.identity(1, type: .randomIdentity)) == stored)
    }

    @Test(arguments: StoreKind.allCases) func bondsAreNewestFirst(kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let store = try kind.make(in: directory)
        for (n, seen) in [(1, 20.0), (2, 30.0), (3, 10.0)] {
            try await store.saveBond(Sample.bond(n, seen: seen), gattState: .empty, replacing: nil)
        }
        #expect(try await store.bonds().map(\.identity) == [2, 1, 3].map { Sample.identity($0) })
        try await store.touch(Sample.identity(3), at: Sample.date(40))
        #expect(try await store.bonds().map(\.identity) == [3, 2, 1].map { Sample.identity($0) })
        #expect(try await store.bond(for: Sample.identity(3))?.lastSeen == Sample.date(40))
        #expect(try await store.leastRecentlyUsed()?.identity == Sample.identity(1))
        #expect(try await store.count() == 3)
    }

    @Test(arguments: StoreKind.allCases) func pairingAgainStartsAfresh(kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let store = try kind.make(in: directory)
        let id = Sample.identity(1)
        try await store.saveBond(Sample.bond(1), gattState: PeerGATTState(cccds: [0x10: 1]), replacing: nil)
        _ = try await store.enqueueMeasurement(valueHandle: 5, value: [1], takenAt: Sample.date(0), for: id, limit: 10)
        var again = Sample.bond(1)
        again.ltk?.key = Sample.key(0x77)
        try await store.saveBond(again, gattState: PeerGATTState(cccds: [0x20: 2]), replacing: id)
        #expect(try await store.bonds() == [again])
        #expect(try await store.gattState(for: id)?.cccds == [0x20: 2])
        #expect(try await store.pendingMeasurements(for: id) == .none)
    }

    @Test(arguments: StoreKind.allCases) func savingReplacesTheGivenBondInOneStep(kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let store = try kind.make(in: directory, maximumBonds: 2)
        try await store.saveBond(Sample.bond(1), gattState: PeerGATTState(cccds: [0x10: 1]), replacing: nil)
        try await store.saveBond(Sample.bond(2), gattState: .empty, replacing: nil)
        await #expect(throws: BondStoreError.full(max: 2)) {
            try await store.saveBond(Sample.bond(3), gattState: .empty, replacing: nil)
        }
        // A failed save leaves the old bonds as they were.
        #expect(Set(try await store.bonds().map(\.identity)) == [Sample.identity(1), Sample.identity(2)])
        #expect(try await store.gattState(for: Sample.identity(1))?.cccds == [0x10: 1])
        let state = PeerGATTState(cccds: [0x30: 2], clientSupportedFeatures: [1], changeAware: false, databaseHash: Sample.hash)
        try await store.saveBond(Sample.bond(3), gattState: state, replacing: Sample.identity(1))
        #expect(Set(try await store.bonds().map(\.identity)) == [Sample.identity(2), Sample.identity(3)])
        #expect(try await store.gattState(for: Sample.identity(1)) == nil)
        #expect(try await store.gattState(for: Sample.identity(3)) == state)
    }

    @Test(arguments: StoreKind.allCases) func invalidSavesChangeNothing(kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let store = try kind.make(in: directory)
        try await store.saveBond(Sample.bond(1), gattState: .empty, replacing: nil)
        var short = Sample.bond(2)
        short.ltk?.keySize = 6
        await #expect(throws: BondStoreError.self) { try await store.saveBond(short, gattState: .empty, replacing: Sample.identity(1)) }
        let badHash = PeerGATTState(databaseHash: [1, 2, 3])
        await #expect(throws: BondStoreError.self) {
            try await store.saveBond(Sample.bond(2), gattState: badHash, replacing: Sample.identity(1))
        }
        await #expect(throws: BondStoreError.self) { try await store.saveGATTState(badHash, for: Sample.identity(1)) }
        #expect(try await store.bonds() == [Sample.bond(1)])
        #expect(try await store.gattState(for: Sample.identity(1)) == .empty)
    }

    @Test(arguments: StoreKind.allCases) func removingABondTakesItsStateAlong(kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let store = try kind.make(in: directory)
        let id = Sample.identity(1)
        try await store.saveBond(Sample.bond(1), gattState: PeerGATTState(cccds: [0x10: 2], changedWhileAway: [0x12]), replacing: nil)
        _ = try await store.enqueueMeasurement(valueHandle: 5, value: [1], takenAt: Sample.date(0), for: id, limit: 10)
        #expect(try await store.removeBond(DeviceAddress(id.address, type: .publicIdentity)))
        #expect(try await store.bond(for: id) == nil)
        #expect(try await store.gattState(for: id) == nil)
        #expect(try await store.pendingMeasurements(for: id) == .none)
        #expect(try await store.removeBond(id) == false)
        // Bonding the same device again does not resurrect anything.
        try await store.saveBond(Sample.bond(1), gattState: .empty, replacing: nil)
        #expect(try await store.gattState(for: id) == .empty)
        #expect(try await store.pendingMeasurements(for: id) == .none)
    }

    @Test(arguments: StoreKind.allCases) func signCountersAndLastSeenAreUpdated(kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let store = try kind.make(in: directory)
        let id = Sample.identity(1, type: .randomDevice)
        try await store.saveBond(Sample.minimalBond(1), gattState: .empty, replacing: nil)
        try await store.updatePeerSignCounter(41, for: id)
        try await store.updateLocalSignCounter(.max, for: id)
        try await store.touch(id, at: Sample.date(99.5))
        let bond = try #require(try await store.bond(for: id))
        #expect(bond.peerSignCounter == 41)
        #expect(bond.localSignCounter == .max)
        #expect(bond.lastSeen == Sample.date(99.5))
    }

    @Test(arguments: StoreKind.allCases) func perPeerCallsWithoutABondThrowNotBonded(kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let store = try kind.make(in: directory)
        let id = Sample.identity(9)
        let notBonded = BondStoreError.notBonded(id)
        await #expect(throws: notBonded) { try await store.touch(id, at: Date()) }
        await #expect(throws: notBonded) { try await store.updatePeerSignCounter(1, for: id) }
        await #expect(throws: notBonded) { try await store.updateLocalSignCounter(1, for: id) }
        await #expect(throws: notBonded) { try await store.setCCCD(handle: 1, value: 1, for: id) }
        await #expect(throws: notBonded) { try await store.saveGATTState(.empty, for: id) }
        await #expect(throws: notBonded) { try await store.clearChangedWhileAway(for: id) }
        await #expect(throws: notBonded) {
            _ = try await store.enqueueMeasurement(valueHandle: 1, value: [], takenAt: Date(), for: id, limit: 1)
        }
        await #expect(throws: notBonded) { try await store.acknowledgeMeasurements(through: 1, for: id) }
        #expect(try await store.gattState(for: id) == nil)
        #expect(try await store.pendingMeasurements(for: id) == .none)
        try await store.markChangedWhileAway(valueHandle: 1, for: [id])
    }

    @Test(arguments: StoreKind.allCases) func cccdWritesAreKeptOneByOne(kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let store = try kind.make(in: directory)
        let id = Sample.identity(1)
        try await store.saveBond(Sample.bond(1), gattState: PeerGATTState(cccds: [0x10: 1, 0x20: 0]), replacing: nil)
        #expect(try await store.gattState(for: id)?.cccds == [0x10: 1])
        try await store.setCCCD(handle: 0x20, value: 2, for: id)
        try await store.setCCCD(handle: 0x10, value: 3, for: id)
        #expect(try await store.gattState(for: id)?.cccds == [0x10: 3, 0x20: 2])
        try await store.setCCCD(handle: 0x10, value: 0, for: id)
        #expect(try await store.gattState(for: id)?.cccds == [0x20: 2])
    }

    @Test(arguments: StoreKind.allCases) func gattStateIsReplacedWhole(kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let store = try kind.make(in: directory)
        let id = Sample.identity(1)
        try await store.saveBond(Sample.bond(1), gattState: PeerGATTState(cccds: [0x10: 1], changedWhileAway: [0x11]), replacing: nil)
        let state = PeerGATTState(
            cccds: [0x30: 2, 0x40: 0], clientSupportedFeatures: [0x07], changeAware: false, databaseHash: Sample.hash,
            changedWhileAway: [0x2F])
        try await store.saveGATTState(state, for: id)
        var expected = state
        expected.cccds = [0x30: 2]
        #expect(try await store.gattState(for: id) == expected)
        try await store.saveGATTState(.empty, for: id)
        #expect(try await store.gattState(for: id) == .empty)
    }

    @Test(arguments: StoreKind.allCases) func changedWhileAwayIsMarkedForBondedPeersAndCleared(kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let store = try kind.make(in: directory)
        let (a, b, stranger) = (Sample.identity(1), Sample.identity(2), Sample.identity(3))
        try await store.saveBond(Sample.bond(1), gattState: .empty, replacing: nil)
        try await store.saveBond(Sample.bond(2), gattState: .empty, replacing: nil)
        try await store.markChangedWhileAway(valueHandle: 0x12, for: [a, b, stranger])
        try await store.markChangedWhileAway(valueHandle: 0x12, for: [a])
        try await store.markChangedWhileAway(valueHandle: 0x15, for: [a])
        #expect(try await store.gattState(for: a)?.changedWhileAway == [0x12, 0x15])
        #expect(try await store.gattState(for: b)?.changedWhileAway == [0x12])
        #expect(try await store.gattState(for: stranger) == nil)
        try await store.clearChangedWhileAway(for: a)
        #expect(try await store.gattState(for: a)?.changedWhileAway == [])
        #expect(try await store.gattState(for: b)?.changedWhileAway == [0x12])
    }

    @Test(arguments: StoreKind.allCases) func measurementsAreBoundedPerHandleOldestDroppedFirst(kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let store = try kind.make(in: directory)
        let (a, b) = (Sample.identity(1), Sample.identity(2))
        try await store.saveBond(Sample.bond(1), gattState: .empty, replacing: nil)
        try await store.saveBond(Sample.bond(2), gattState: .empty, replacing: nil)
        var kept: [StoredMeasurement] = []
        for i in 0..<5 {
            let taken = Sample.date(Double(i) + 0.25)
            let sequence = try await store.enqueueMeasurement(valueHandle: 0x21, value: [UInt8(i)], takenAt: taken, for: a, limit: 3)
            kept.append(StoredMeasurement(sequence: sequence, valueHandle: 0x21, value: [UInt8(i)], takenAt: taken))
        }
        // Another handle and another peer have bounds of their own.
        let other = try await store.enqueueMeasurement(valueHandle: 0x25, value: [9, 9], takenAt: Sample.date(9), for: a, limit: 1)
        _ = try await store.enqueueMeasurement(valueHandle: 0x21, value: [7], takenAt: Sample.date(9), for: b, limit: 3)
        #expect(kept.map(\.sequence) == kept.map(\.sequence).sorted())
        let pending = try await store.pendingMeasurements(for: a)
        #expect(pending.dropped == 2)
        #expect(pending.measurements == Array(kept.suffix(3)) + [
            StoredMeasurement(sequence: other, valueHandle: 0x25, value: [9, 9], takenAt: Sample.date(9)),
        ])
        #expect(try await store.pendingMeasurements(for: b).dropped == 0)
        #expect(try await store.pendingMeasurements(for: b).measurements.map(\.value) == [[7]])
        await #expect(throws: BondStoreError.self) {
            _ = try await store.enqueueMeasurement(valueHandle: 1, value: [], takenAt: Date(), for: a, limit: 0)
        }
    }

    @Test(arguments: StoreKind.allCases) func acknowledgingRemovesThroughTheSequenceAndResetsDropped(kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let store = try kind.make(in: directory)
        let id = Sample.identity(1)
        try await store.saveBond(Sample.bond(1), gattState: .empty, replacing: nil)
        var sequences: [Int64] = []
        for i in 0..<4 {
            sequences.append(try await store.enqueueMeasurement(valueHandle: 0x21, value: [UInt8(i)], takenAt: Sample.date(0), for: id, limit: 3))
        }
        #expect(try await store.pendingMeasurements(for: id).dropped == 1)
        try await store.acknowledgeMeasurements(through: sequences[2], for: id)
        let pending = try await store.pendingMeasurements(for: id)
        #expect(pending.dropped == 0)
        #expect(pending.measurements.map(\.sequence) == [sequences[3]])
        // A sequence is never handed out again, even after everything was acknowledged.
        try await store.acknowledgeMeasurements(through: sequences[3], for: id)
        let next = try await store.enqueueMeasurement(valueHandle: 0x21, value: [], takenAt: Sample.date(0), for: id, limit: 3)
        #expect(next > sequences[3])
        #expect(try await store.pendingMeasurements(for: id).measurements.map(\.sequence) == [next])
    }
}
