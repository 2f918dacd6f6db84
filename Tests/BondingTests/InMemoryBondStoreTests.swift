import BLECore
import Bonding
import Foundation
import Testing

/// What only the in-memory store shows; the shared contract runs on both stores in SQLiteBondStoreTests.
@Suite struct InMemoryBondStoreTests {
    static func bond(_ last: UInt8, seen: TimeInterval) -> Bond {
        let key = Key128(Array(repeating: last, count: 16))!
        return Bond(
            identity: DeviceAddress(BluetoothAddress("00:11:22:33:44:\(String(format: "%02X", last))")!, type: .publicDevice),
            ltk: LongTermKeyRecord(key: key, ediv: 0, rand: 0, keySize: 16, authenticated: true, secureConnections: true),
            createdAt: Date(timeIntervalSinceReferenceDate: 0), lastSeen: Date(timeIntervalSinceReferenceDate: seen))
    }

    @Test func leastRecentlyUsedSkipsExcludedIdentities() async throws {
        let store = InMemoryBondStore()
        for (last, seen) in [(1, 30.0), (2, 10.0), (3, 20.0)] {
            try await store.saveBond(Self.bond(UInt8(last), seen: seen), gattState: .empty, replacing: nil)
        }
        #expect(try await store.count() == 3)
        #expect(try await store.leastRecentlyUsed()?.identity == Self.bond(2, seen: 0).identity)
        let oldest = Self.bond(2, seen: 0).identity
        // Excluded by its controller-resolved form: the helper compares bond identities.
        let resolved = DeviceAddress(oldest.address, type: .publicIdentity)
        #expect(try await store.leastRecentlyUsed(excluding: [resolved])?.identity == Self.bond(3, seen: 0).identity)
    }

    @Test func aFullStoreRejectsANewPeerAndKeepsEverything() async throws {
        let store = InMemoryBondStore(maximumBonds: 1)
        let first = Self.bond(1, seen: 1)
        try await store.saveBond(first, gattState: PeerGATTState(cccds: [3: 1]), replacing: nil)
        await #expect(throws: BondStoreError.full(max: 1)) {
            try await store.saveBond(Self.bond(2, seen: 2), gattState: .empty, replacing: nil)
        }
        #expect(await store.bonds() == [first])
        #expect(await store.gattState(for: first.identity)?.cccds == [3: 1])
    }
}
