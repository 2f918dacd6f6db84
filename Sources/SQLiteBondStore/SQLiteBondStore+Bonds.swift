import BLECore
import Bonding
import Foundation
import GRDB

extension SQLiteBondStore {
    public func localIdentity(creating make: @Sendable () -> LocalIdentity) async throws(BondStoreError) -> LocalIdentity {
        let path = path
        // In the write transaction, so two first callers cannot both create one.
        return try await write { db in
            if let row = try Row.fetchOne(db, sql: "SELECT irk, address, csrk FROM local_identity WHERE id = 1") {
                let reader = RowReader(row: row, table: "local_identity", path: path)
                let text: String = try reader["address"]
                guard let address = BluetoothAddress(text) else { throw reader.corrupt("address") }
                return LocalIdentity(irk: try reader.key("irk"), address: address, csrk: try reader.key("csrk"))
            }
            let made = make()
            try db.execute(
                sql: "INSERT INTO local_identity (id, irk, address, csrk) VALUES (1, ?, ?, ?)",
                arguments: [Data(made.irk.bytes), made.address.description, Data(made.csrk.bytes)])
            return made
        }
    }

    /// Every readable bond. A row that cannot be read (a damaged key, an impossible address) is
    /// skipped and named in `unreadableBonds`: one damaged bond must not cost every other one.
    public func bonds() async throws(BondStoreError) -> [Bond] {
        let path = path
        let (bonds, unreadable) = try await read { db in
            let rows = try Row.fetchAll(
                db, sql: "SELECT \(BondRows.columns) FROM bond ORDER BY last_seen DESC, address, address_type")
            var bonds: [Bond] = [], unreadable: [String] = []
            for row in rows {
                do throws(BondStoreError) { bonds.append(try BondRows.bond(from: row, path: path)) } catch {
                    unreadable.append("\(error)")
                }
            }
            return (bonds, unreadable)
        }
        unreadableRows.withLock { $0 = unreadable }
        return bonds
    }

    /// Why rows were skipped by the last `bonds()`, one message each.
    public var unreadableBonds: [String] { unreadableRows.withLock { $0 } }

    public func bond(for identity: DeviceAddress) async throws(BondStoreError) -> Bond? {
        let path = path
        let key = identity.bondIdentity
        return try await read { db in
            let row = try Row.fetchOne(
                db, sql: "SELECT \(BondRows.columns) FROM bond WHERE address = ? AND address_type = ?",
                arguments: [key.address.description, Int(key.type.rawValue)])
            return try row.map { row throws(BondStoreError) in try BondRows.bond(from: row, path: path) }
        }
    }

    public func saveBond(_ bond: Bond, gattState: PeerGATTState, replacing: DeviceAddress?) async throws(BondStoreError) {
        let bond = try bond.validated()
        let gattState = try gattState.validated()
        let maximumBonds = maximumBonds
        try await write { db in
            if let replacing, replacing.bondIdentity != bond.identity {
                try Self.deleteBond(replacing, in: db)
            }
            try Self.deleteBond(bond.identity, in: db)
            let count = try Int.fetchOne(db, sql: "SELECT count(*) FROM bond") ?? 0
            guard count < maximumBonds else { throw BondStoreError.full(max: maximumBonds) }
            let id = try BondRows.insert(bond, into: db)
            try Self.insertGATTState(gattState, bondID: id, in: db)
        }
    }

    public func removeBond(_ identity: DeviceAddress) async throws(BondStoreError) -> Bool {
        try await write { db in try Self.deleteBond(identity, in: db) }
    }

    public func touch(_ identity: DeviceAddress, at date: Date) async throws(BondStoreError) {
        try await updateBond(identity, set: "last_seen = ?", date.timeIntervalSinceReferenceDate)
    }

    public func updatePeerSignCounter(_ counter: UInt32, for identity: DeviceAddress) async throws(BondStoreError) {
        try await updateBond(identity, set: "peer_sign_counter = ?", Int64(counter))
    }

    public func updateLocalSignCounter(_ counter: UInt32, for identity: DeviceAddress) async throws(BondStoreError) {
        try await updateBond(identity, set: "local_sign_counter = ?", Int64(counter))
    }

    private func updateBond(
        _ identity: DeviceAddress, set assignment: String, _ value: some DatabaseValueConvertible & Sendable
    ) async throws(BondStoreError) {
        try await write { db in
            let id = try Self.requireBondID(identity, in: db)
            try db.execute(sql: "UPDATE bond SET \(assignment) WHERE id = ?", arguments: [value, id])
        }
    }

    /// Foreign keys cascade the delete to the peer's GATT state and measurements.
    @discardableResult
    static func deleteBond(_ identity: DeviceAddress, in db: Database) throws -> Bool {
        let key = identity.bondIdentity
        try db.execute(
            sql: "DELETE FROM bond WHERE address = ? AND address_type = ?",
            arguments: [key.address.description, Int(key.type.rawValue)])
        return db.changesCount > 0
    }
}
