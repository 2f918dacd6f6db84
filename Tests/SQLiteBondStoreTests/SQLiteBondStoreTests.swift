import BLECore
import Bonding
import Foundation
import GRDB
import Testing
@testable import SQLiteBondStore

/// What only the persistent store must do: keep everything across reopening, hold the file to 0600, run with
/// the durability settings, and fail clearly on a bad file.
@Suite struct SQLiteBondStoreTests {
    @Test func everythingSurvivesReopening() async throws {
        let directory = TemporaryDirectory()
        let id = Sample.identity(1)
        var expectedState = PeerGATTState(cccds: [0x10: 1], clientSupportedFeatures: [1], changeAware: false, databaseHash: Sample.hash)
        var sequences: [Int64] = []
        do {
            let store = try SQLiteBondStore(path: directory.database)
            _ = try await store.localIdentity { Sample.localIdentity }
            try await store.saveBond(Sample.bond(1, rand: .max), gattState: expectedState, replacing: nil)
            try await store.saveBond(Sample.minimalBond(2), gattState: .empty, replacing: nil)
            try store.close()
        }
        // Each CCCD write is its own commit: reopen between them.
        for (handle, value) in [(UInt16(0x20), UInt16(2)), (0x10, 0)] {
            let store = try SQLiteBondStore(path: directory.database)
            try await store.setCCCD(handle: handle, value: value, for: id)
            try store.close()
        }
        expectedState.cccds = [0x20: 2]
        expectedState.changedWhileAway = [0x31]
        do {
            let store = try SQLiteBondStore(path: directory.database)
            try await store.markChangedWhileAway(valueHandle: 0x31, for: [id])
            for i in 0..<3 {
                sequences.append(try await store.enqueueMeasurement(valueHandle: 0x31, value: [UInt8(i)], takenAt: Sample.date(Double(i)), for: id, limit: 2))
            }
            try store.close()
        }
        let store = try SQLiteBondStore(path: directory.database)
        #expect(try await store.localIdentity { LocalIdentity(irk: Sample.key(0), address: .zero, csrk: Sample.key(0)) } == Sample.localIdentity)
        #expect(try await store.bonds() == [Sample.bond(1, rand: .max), Sample.minimalBond(2)])
        #expect(try await store.gattState(for: id) == expectedState)
        let pending = try await store.pendingMeasurements(for: id)
        #expect(pending.dropped == 1)
        #expect(pending.measurements.map(\.sequence) == Array(sequences.suffix(2)))
        #expect(pending.measurements.map(\.takenAt) == [Sample.date(1), Sample.date(2)])
        try await store.checkIntegrity()
    }

    @Test func aClosedStoreFailsCleanlyAndReopens() async throws {
        let directory = TemporaryDirectory()
        let store = try SQLiteBondStore(path: directory.database)
        try await store.saveBond(Sample.bond(1), gattState: .empty, replacing: nil)
        try store.close()
        await #expect(throws: BondStoreError.self) { _ = try await store.bonds() }
        let reopened = try SQLiteBondStore(path: directory.database)
        #expect(try await reopened.bonds() == [Sample.bond(1)])
    }

    @Test func runsWithWALFullSyncAndForeignKeys() throws {
        let directory = TemporaryDirectory()
        let store = try SQLiteBondStore(path: directory.database)
        let (journal, synchronous, foreignKeys) = try store.queue.read { db in
            (try String.fetchOne(db, sql: "PRAGMA journal_mode"), try Int.fetchOne(db, sql: "PRAGMA synchronous"),
             try Int.fetchOne(db, sql: "PRAGMA foreign_keys"))
        }
        #expect(journal == "wal")
        #expect(synchronous == 2) // FULL
        #expect(foreignKeys == 1)
    }

    @Test func randAboveInt64MaxIsStoredBitCast() async throws {
        let directory = TemporaryDirectory()
        let store = try SQLiteBondStore(path: directory.database)
        try await store.saveBond(Sample.bond(1, rand: UInt64.max), gattState: .empty, replacing: nil)
        let raw = try await store.queue.read { db in try Int64.fetchOne(db, sql: "SELECT ltk_rand FROM bond") }
        #expect(raw == -1)
    }

    @Test func removingABondCascadesInTheTables() async throws {
        let directory = TemporaryDirectory()
        let store = try SQLiteBondStore(path: directory.database)
        let id = Sample.identity(1)
        try await store.saveBond(Sample.bond(1), gattState: PeerGATTState(cccds: [1: 1], changedWhileAway: [2]), replacing: nil)
        _ = try await store.enqueueMeasurement(valueHandle: 3, value: [3], takenAt: Date(), for: id, limit: 5)
        #expect(try await store.removeBond(id))
        let counts = try await store.queue.read { db in
            try ["bond", "peer_gatt", "cccd", "changed_while_away", "measurement"].map {
                try Int.fetchOne(db, sql: "SELECT count(*) FROM \($0)") ?? -1
            }
        }
        #expect(counts == [0, 0, 0, 0, 0])
    }

    /// A failure after the old bond's rows were deleted inside saveBond's transaction rolls the delete back.
    @Test func aSaveThatFailsMidwayKeepsTheOldBond() async throws {
        let directory = TemporaryDirectory()
        let store = try SQLiteBondStore(path: directory.database)
        let state = PeerGATTState(cccds: [0x10: 1], changedWhileAway: [0x12])
        try await store.saveBond(Sample.bond(1), gattState: state, replacing: nil)
        // Fails the GATT insert, the last step, after both deletes and the bond insert.
        try await store.queue.write { db in
            try db.execute(sql: "CREATE TEMP TRIGGER fail_gatt BEFORE INSERT ON peer_gatt BEGIN SELECT RAISE(ABORT, 'injected'); END")
        }
        await #expect(throws: BondStoreError.self) {
            try await store.saveBond(Sample.bond(2), gattState: .empty, replacing: Sample.identity(1))
        }
        await #expect(throws: BondStoreError.self) {
            try await store.saveBond(Sample.bond(1, rand: 5), gattState: .empty, replacing: nil)
        }
        #expect(try await store.bonds() == [Sample.bond(1)])
        #expect(try await store.gattState(for: Sample.identity(1)) == state)
    }

    @Test func theFileAndItsSidecarsAreOwnerOnly() async throws {
        let directory = TemporaryDirectory()
        let store = try SQLiteBondStore(path: directory.database)
        try await store.saveBond(Sample.bond(1), gattState: .empty, replacing: nil)
        for suffix in ["", "-wal", "-shm"] {
            #expect(try mode(directory.database + suffix) == 0o600, "\(suffix)")
        }
    }

    @Test func aLooseExistingFileIsTightened() async throws {
        let directory = TemporaryDirectory()
        try SQLiteBondStore(path: directory.database).close()
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: directory.database + suffix) {
            #expect(chmod(directory.database + suffix, 0o644) == 0)
        }
        let store = try SQLiteBondStore(path: directory.database)
        try await store.saveBond(Sample.bond(1), gattState: .empty, replacing: nil)
        for suffix in ["", "-wal", "-shm"] {
            #expect(try mode(directory.database + suffix) == 0o600, "\(suffix)")
        }
    }

    @Test func aFileThatIsNotADatabaseIsReportedAsCorrupt() throws {
        let directory = TemporaryDirectory()
        try Data(repeating: 0x5A, count: 8192).write(to: URL(fileURLWithPath: directory.database))
        #expect(throws: BondStoreError.self) { try SQLiteBondStore(path: directory.database) }
        do {
            _ = try SQLiteBondStore(path: directory.database)
        } catch {
            guard case let .corrupt(path, _) = error else { Issue.record("expected .corrupt, got \(error)"); return }
            #expect(path == directory.database)
            #expect(error.description.contains("remove it to forget all bonds"))
        }
    }

    @Test func aDamagedPageIsReportedAsCorrupt() async throws {
        let directory = TemporaryDirectory()
        do {
            let store = try SQLiteBondStore(path: directory.database, maximumBonds: 100)
            for n in 0..<40 { try await store.saveBond(Sample.bond(n), gattState: .empty, replacing: nil) }
            // Move everything from the WAL into the main file, so damaging the file damages the data.
            try await store.queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
            try store.close()
        }
        let handle = try #require(FileHandle(forUpdatingAtPath: directory.database))
        let size = try handle.seekToEnd()
        #expect(size > 4096 * 3)
        // Leave the header page alone so SQLite opens the file, scribble over the tables' pages.
        try handle.seek(toOffset: 4096)
        try handle.write(contentsOf: Data(repeating: 0xFF, count: Int(size) - 4096))
        try handle.close()
        do {
            let store = try SQLiteBondStore(path: directory.database)
            _ = try await store.bonds()
            Issue.record("a damaged database opened and read without an error")
        } catch {
            guard case .corrupt = error else { Issue.record("expected .corrupt, got \(error)"); return }
        }
    }

    /// Store-and-forward for several away centrals is one transaction: every bonded one gets the
    /// measurement, an identity without a bond is named back, and the limit holds per central.
    @Test func oneMeasurementForSeveralAwayCentralsIsOneWrite() async throws {
        let directory = TemporaryDirectory()
        let store = try SQLiteBondStore(path: directory.database, maximumBonds: 100)
        for n in 0..<3 { try await store.saveBond(Sample.bond(n), gattState: .empty, replacing: nil) }
        let stranger = Sample.bond(9).identity
        let away = [Sample.bond(0).identity, stranger, Sample.bond(2).identity]
        for value: UInt8 in 1...3 {
            let unbonded = try await store.enqueueMeasurement(valueHandle: 0x20, value: [value], takenAt: Date(timeIntervalSince1970: Double(value)),
                                                              for: away, limit: 2)
            #expect(unbonded == [stranger])
        }
        for identity in [Sample.bond(0).identity, Sample.bond(2).identity] {
            let pending = try await store.pendingMeasurements(for: identity)
            #expect(pending.measurements.map(\.value) == [[2], [3]])
            #expect(pending.dropped == 1)
        }
        #expect(try await store.pendingMeasurements(for: Sample.bond(1).identity).measurements.isEmpty)
    }

    /// One damaged row costs one bond, not all of them: it is skipped and named.
    @Test func anUnreadableBondIsSkippedAndNamed() async throws {
        let directory = TemporaryDirectory()
        let store = try SQLiteBondStore(path: directory.database, maximumBonds: 100)
        for n in 0..<3 { try await store.saveBond(Sample.bond(n), gattState: .empty, replacing: nil) }
        let damaged = Sample.bond(1).identity
        // Damage the schema's checks would refuse: what a bad sector or another writer leaves.
        try await store.queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA ignore_check_constraints = ON")
            try db.execute(sql: "UPDATE bond SET ltk = ? WHERE address = ?", arguments: [Data([1, 2, 3]), damaged.address.description])
            try db.execute(sql: "PRAGMA ignore_check_constraints = OFF")
        }
        let bonds = try await store.bonds()
        #expect(Set(bonds.map(\.identity)) == [Sample.bond(0).identity, Sample.bond(2).identity])
        #expect(store.unreadableBonds.count == 1)
        #expect(store.unreadableBonds.first?.contains("bond.ltk") == true)
    }

    @Test func aMissingDirectoryCannotBeOpened() throws {
        let directory = TemporaryDirectory()
        #expect {
            try SQLiteBondStore(path: directory.path + "/missing/bonds.sqlite")
        } throws: { error in
            guard let error = error as? BondStoreError, case .cannotOpen = error else { return false }
            return error.description.contains("missing/bonds.sqlite")
        }
    }

    private func mode(_ path: String) throws -> UInt32 {
        var info = stat()
        guard stat(path, &info) == 0 else { throw CocoaError(.fileNoSuchFile) }
        return UInt32(info.st_mode & 0o777)
    }
}
