import BLECore
import Bonding
import Foundation
import GRDB
import Testing
@testable import SQLiteBondStore

/// A file made by the first schema opens under the current one with every row kept (v2 made the
/// local LTK optional for bonds made as central).
@Suite struct MigrationTests {
    /// A database as the v1 release left it: one bond with a subscription and a stored measurement.
    static func makeV1Database(at path: String) throws {
        let queue = try DatabaseQueue(path: path)
        try Schema.migrator.migrate(queue, upTo: "v1")
        try queue.write { db in
            let id = try BondRows.insert(Sample.bond(1), into: db)
            try db.execute(sql: "INSERT INTO cccd (bond_id, handle, value) VALUES (?, 0x0010, 1)", arguments: [id])
            try db.execute(sql: "INSERT INTO measurement (bond_id, value_handle, value, taken_at) VALUES (?, 0x0012, x'0102', 0)",
                           arguments: [id])
        }
        try queue.close()
    }

    @Test func aV1FileKeepsItsBondsAndTheirRowsAndTakesBondsMadeAsCentral() async throws {
        let directory = TemporaryDirectory()
        try Self.makeV1Database(at: directory.database)
        let store = try SQLiteBondStore(path: directory.database)
        #expect(try await store.bonds() == [Sample.bond(1)])
        #expect(try await store.gattState(for: Sample.identity(1))?.cccds == [0x0010: 1])
        #expect(try await store.pendingMeasurements(for: Sample.identity(1)).measurements.count == 1)

        // Legacy pairing as central where the peripheral took no key from us: only its key.
        var central = Sample.minimalBond(2)
        central.peerLTK = central.ltk.map { var key = $0; key.secureConnections = false; key.ediv = 0xBEEF; return key }
        central.ltk = nil
        try await store.saveBond(central, gattState: .empty, replacing: nil)
        #expect(try await store.bond(for: central.identity) == central)
        #expect(try await store.bond(for: central.identity)?.keyAsCentral?.ediv == 0xBEEF)
        // Removing a migrated bond still cascades to its rows (the foreign keys survived the rebuild).
        #expect(try await store.removeBond(Sample.identity(1)))
        #expect(try await store.gattState(for: Sample.identity(1)) == nil)
        try store.close()
        let reopened = try SQLiteBondStore(path: directory.database)
        #expect(try await reopened.bonds().count == 1)
    }

    @Test(arguments: StoreKind.allCases) func aBondWithoutAnyKeyIsRefused(_ kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let store = try kind.make(in: directory)
        var keyless = Sample.minimalBond(3)
        keyless.ltk = nil
        await #expect(throws: BondStoreError.invalidArgument("a bond needs a long-term key")) {
            try await store.saveBond(keyless, gattState: .empty, replacing: nil)
        }
    }
}
