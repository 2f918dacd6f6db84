import BLECore
import Bonding
import Foundation
import GRDB

extension SQLiteBondStore {
    public func gattState(for identity: DeviceAddress) async throws(BondStoreError) -> PeerGATTState? {
        let path = path
        return try await read { db in
            guard let id = try Self.bondID(identity, in: db) else { return nil }
            var state = PeerGATTState.empty
            if let row = try Row.fetchOne(
                db, sql: "SELECT client_supported_features, change_aware, database_hash FROM peer_gatt WHERE bond_id = ?",
                arguments: [id])
            {
                let reader = RowReader(row: row, table: "peer_gatt", path: path)
                let features: Data = try reader["client_supported_features"]
                let hash: Data? = try reader["database_hash"]
                state.clientSupportedFeatures = [UInt8](features)
                state.changeAware = try reader["change_aware"]
                state.databaseHash = hash.map { [UInt8]($0) }
            }
            for row in try Row.fetchAll(db, sql: "SELECT handle, value FROM cccd WHERE bond_id = ?", arguments: [id]) {
                let reader = RowReader(row: row, table: "cccd", path: path)
                let handle: UInt16 = try reader["handle"]
                state.cccds[handle] = try reader["value"]
            }
            let changed = try Row.fetchAll(
                db, sql: "SELECT value_handle FROM changed_while_away WHERE bond_id = ?", arguments: [id])
            for row in changed {
                let handle: UInt16 = try RowReader(row: row, table: "changed_while_away", path: path)["value_handle"]
                state.changedWhileAway.insert(handle)
            }
            return state
        }
    }

    public func setCCCD(handle: UInt16, value: UInt16, for identity: DeviceAddress) async throws(BondStoreError) {
        try await write { db in
            let id = try Self.requireBondID(identity, in: db)
            if value == 0 {
                try db.execute(sql: "DELETE FROM cccd WHERE bond_id = ? AND handle = ?", arguments: [id, Int(handle)])
            } else {
                try db.execute(
                    sql: "INSERT OR REPLACE INTO cccd (bond_id, handle, value) VALUES (?, ?, ?)",
                    arguments: [id, Int(handle), Int(value)])
            }
        }
    }

    public func saveGATTState(_ state: PeerGATTState, for identity: DeviceAddress) async throws(BondStoreError) {
        let state = try state.validated()
        try await write { db in
            let id = try Self.requireBondID(identity, in: db)
            for table in ["peer_gatt", "cccd", "changed_while_away"] {
                try db.execute(sql: "DELETE FROM \(table) WHERE bond_id = ?", arguments: [id])
            }
            try Self.insertGATTState(state, bondID: id, in: db)
        }
    }

    public func markChangedWhileAway(valueHandle: UInt16, for identities: [DeviceAddress]) async throws(BondStoreError) {
        try await write { db in
            for identity in identities {
                guard let id = try Self.bondID(identity, in: db) else { continue }
                try db.execute(
                    sql: "INSERT OR IGNORE INTO changed_while_away (bond_id, value_handle) VALUES (?, ?)",
                    arguments: [id, Int(valueHandle)])
            }
        }
    }

    public func clearChangedWhileAway(for identity: DeviceAddress) async throws(BondStoreError) {
        try await write { db in
            let id = try Self.requireBondID(identity, in: db)
            try db.execute(sql: "DELETE FROM changed_while_away WHERE bond_id = ?", arguments: [id])
        }
    }

    /// Expects no GATT rows for `bondID` yet.
    static func insertGATTState(_ state: PeerGATTState, bondID id: Int64, in db: Database) throws {
        try db.execute(
            sql: "INSERT INTO peer_gatt (bond_id, client_supported_features, change_aware, database_hash) VALUES (?, ?, ?, ?)",
            arguments: [id, Data(state.clientSupportedFeatures), state.changeAware, state.databaseHash.map { Data($0) }])
        for (handle, value) in state.cccds where value != 0 {
            try db.execute(
                sql: "INSERT INTO cccd (bond_id, handle, value) VALUES (?, ?, ?)", arguments: [id, Int(handle), Int(value)])
        }
        for handle in state.changedWhileAway {
            try db.execute(
                sql: "INSERT INTO changed_while_away (bond_id, value_handle) VALUES (?, ?)", arguments: [id, Int(handle)])
        }
    }
}
