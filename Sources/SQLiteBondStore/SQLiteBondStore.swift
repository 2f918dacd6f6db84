import BLECore
import Bonding
import Foundation
import GRDB
import Synchronization

/// The persistent `BondStore` and `MeasurementStore`: one SQLite file in WAL mode with `synchronous = FULL`, so a write that returned
/// survives a power cut or kill -9. Every access after `init` goes through GRDB's async `read`/`write`, which
/// run on GRDB's own dispatch queue, never blocking the Swift cooperative pool.
public final class SQLiteBondStore: BondStore {
    public let path: String
    public let maximumBonds: Int
    /// A copy in memory of a file this process may not write (`inMemoryCopy(of:)`).
    public let isInMemory: Bool
    let queue: DatabaseQueue
    /// Set on the queue by `close()`: GRDB crashes on a closed connection, so every access checks it first.
    private let isClosed = Mutex(false)
    let unreadableRows = Mutex<[String]>([])

    /// Opens (creating if needed, mode 0600) and migrates the database at `path`; an existing file readable by
    /// group or others is tightened to 0600. This blocks while SQLite opens and checks the file: call it at
    /// startup, not from a latency-sensitive task.
    public convenience init(path: String, maximumBonds: Int = BondStoreLimits.defaultMaximumBonds) throws(BondStoreError) {
        try DatabaseFile.prepare(path)
        var configuration = Configuration()
        configuration.label = "bonds"
        configuration.foreignKeysEnabled = true
        configuration.busyMode = .timeout(5)
        // GRDB's `journalMode = .wal` would lower synchronous to NORMAL after this runs, losing the last commits
        // on power loss; so WAL is set up here, with FULL, on the queue's one connection.
        configuration.prepareDatabase { db in
            let mode = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
            guard mode == "wal" else {
                throw DatabaseError(resultCode: .SQLITE_CANTOPEN, message: "WAL journal mode is unavailable here")
            }
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        let queue: DatabaseQueue
        do { queue = try DatabaseQueue(path: path, configuration: configuration) } catch { throw StoreErrors.map(error, path: path) }
        try self.init(path: path, maximumBonds: maximumBonds, queue: queue, inMemory: false)
    }

    /// A store in memory holding a copy of the bonds in `path` (none when it does not exist), for a state
    /// directory on a read-only file system: bonded centrals keep working, and what changes is lost when the
    /// store is released. The file and its WAL are copied into a private scratch directory (the first of
    /// `scratchDirectories` that takes one) and opened there, so SQLite replays the last commits of a daemon
    /// that did not stop cleanly; the originals are only read. With no writable scratch directory, the file
    /// alone is opened immutable (commits still in its WAL are then missing).
    public static func inMemoryCopy(of path: String, maximumBonds: Int = BondStoreLimits.defaultMaximumBonds,
                                    scratchDirectories: [String] = [NSTemporaryDirectory()]) throws(BondStoreError) -> SQLiteBondStore {
        try inMemory(standingIn: path, copyingFrom: scratchDirectories, maximumBonds: maximumBonds)
    }

    /// An empty store in memory, named after the file it stands in for (which it never reads).
    public static func emptyInMemory(standingIn path: String, maximumBonds: Int = BondStoreLimits.defaultMaximumBonds) throws(BondStoreError) -> SQLiteBondStore {
        try inMemory(standingIn: path, copyingFrom: nil, maximumBonds: maximumBonds)
    }

    private static func inMemory(standingIn path: String, copyingFrom scratch: [String]?, maximumBonds: Int) throws(BondStoreError) -> SQLiteBondStore {
        var configuration = Configuration()
        configuration.label = "bonds (in memory)"
        configuration.foreignKeysEnabled = true
        do {
            let memory = try DatabaseQueue(configuration: configuration)
            if let scratch, FileManager.default.fileExists(atPath: path) {
                try copy(path, into: memory, scratchDirectories: scratch)
            }
            return try SQLiteBondStore(path: path, maximumBonds: maximumBonds, queue: memory, inMemory: true)
        } catch {
            throw StoreErrors.map(error, path: path)
        }
    }

    private static func copy(_ path: String, into memory: DatabaseQueue, scratchDirectories: [String]) throws {
        guard let directory = ScratchDirectory.make(in: scratchDirectories) else {
            var readOnly = Configuration()
            readOnly.readonly = true
            let source = try DatabaseQueue(path: immutableLocation(path), configuration: readOnly)
            try source.backup(to: memory)
            try source.close()
            return
        }
        defer { directory.remove() }
        let copy = directory.path + "/bonds.sqlite"
        // Not the -shm: SQLite rebuilds it from the WAL.
        for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: path + suffix) {
            try FileManager.default.copyItem(atPath: path + suffix, toPath: copy + suffix)
        }
        let source = try DatabaseQueue(path: copy)
        try source.backup(to: memory)
        try source.close()
    }

    /// The file alone, read-only: SQLite takes no lock and makes no -shm, which a read-only directory refuses.
    static func immutableLocation(_ path: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "?#%")
        let escaped = path.addingPercentEncoding(withAllowedCharacters: allowed) ?? path
        return "file:\(escaped)?immutable=1"
    }

    private init(path: String, maximumBonds: Int, queue: DatabaseQueue, inMemory: Bool) throws(BondStoreError) {
        self.path = path
        self.maximumBonds = maximumBonds
        self.queue = queue
        self.isInMemory = inMemory
        do {
            let check = try queue.read { db in try String.fetchAll(db, sql: "PRAGMA quick_check") }
            guard check == ["ok"] else {
                throw BondStoreError.corrupt(path: path, reason: "integrity check: \(check.prefix(3).joined(separator: "; "))")
            }
            try Schema.migrator.migrate(queue)
        } catch {
            throw StoreErrors.map(error, path: path)
        }
    }

    /// Closes the file; any later call throws `.databaseFailure`. Releasing the store closes it too.
    public func close() throws(BondStoreError) {
        do {
            // Through the queue, so accesses already scheduled finish first and later ones see the flag.
            queue.inDatabase { _ in isClosed.withLock { $0 = true } }
            try queue.close()
        } catch {
            throw StoreErrors.map(error, path: path)
        }
    }

    /// Runs SQLite's full integrity check; throws `.corrupt` with its first findings.
    public func checkIntegrity() async throws(BondStoreError) {
        let path = path
        let check = try await read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
        guard check == ["ok"] else {
            throw .corrupt(path: path, reason: "integrity check: \(check.prefix(3).joined(separator: "; "))")
        }
    }

    /// A consistent snapshot: one deferred read-only transaction.
    func read<T: Sendable>(_ work: @Sendable (Database) throws -> T) async throws(BondStoreError) -> T {
        try await access { db in
            try db.readOnly {
                var result: T?
                try db.inTransaction(.deferred) {
                    result = try work(db)
                    return .commit
                }
                return result!
            }
        }
    }

    /// One transaction: committed (and synced) when this returns, rolled back entirely if `work` throws.
    /// IMMEDIATE takes the write lock up front, so another process cannot make it fail half-way with SQLITE_BUSY.
    func write<T: Sendable>(_ work: @Sendable (Database) throws -> T) async throws(BondStoreError) -> T {
        try await access { db in
            var result: T?
            try db.inTransaction(.immediate) {
                result = try work(db)
                return .commit
            }
            return result!
        }
    }

    /// Runs `work` on GRDB's queue (off the cooperative pool) unless the store was closed.
    private func access<T: Sendable>(_ work: @Sendable (Database) throws -> T) async throws(BondStoreError) -> T {
        do {
            return try await queue.writeWithoutTransaction { db in
                guard !self.isClosed.withLock({ $0 }) else { throw BondStoreError.databaseFailure("\(self.path) is closed") }
                return try work(db)
            }
        } catch {
            throw StoreErrors.map(error, path: path)
        }
    }

    /// The bond row's id, if `identity` is bonded.
    static func bondID(_ identity: DeviceAddress, in db: Database) throws -> Int64? {
        let key = identity.bondIdentity
        return try Int64.fetchOne(
            db, sql: "SELECT id FROM bond WHERE address = ? AND address_type = ?",
            arguments: [key.address.description, Int(key.type.rawValue)])
    }

    static func requireBondID(_ identity: DeviceAddress, in db: Database) throws -> Int64 {
        guard let id = try bondID(identity, in: db) else { throw BondStoreError.notBonded(identity.bondIdentity) }
        return id
    }
}
