import BLECore
import Bonding
import Foundation
import GRDB

extension SQLiteBondStore: MeasurementStore {
    public func enqueueMeasurement(
        valueHandle: UInt16, value: [UInt8], takenAt: Date, for identity: DeviceAddress, limit: Int
    ) async throws(BondStoreError) -> Int64 {
        guard limit >= 1 else { throw .invalidArgument("a measurement limit of \(limit) keeps nothing; it must be at least 1") }
        return try await write { db in
            try Self.insertMeasurement(valueHandle: valueHandle, value: value, takenAt: takenAt,
                                       bond: try Self.requireBondID(identity, in: db), limit: limit, in: db)
        }
    }

    /// One transaction, so one sync to disk, whatever the number of away centrals.
    public func enqueueMeasurement(
        valueHandle: UInt16, value: [UInt8], takenAt: Date, for identities: [DeviceAddress], limit: Int
    ) async throws(BondStoreError) -> [DeviceAddress] {
        guard limit >= 1 else { throw .invalidArgument("a measurement limit of \(limit) keeps nothing; it must be at least 1") }
        guard !identities.isEmpty else { return [] }
        return try await write { db in
            var unbonded: [DeviceAddress] = []
            for identity in identities {
                guard let id = try Self.bondID(identity, in: db) else {
                    unbonded.append(identity)
                    continue
                }
                _ = try Self.insertMeasurement(valueHandle: valueHandle, value: value, takenAt: takenAt, bond: id, limit: limit, in: db)
            }
            return unbonded
        }
    }

    /// Inserts, then drops (and counts) the oldest beyond `limit`; the new row's sequence.
    private static func insertMeasurement(valueHandle: UInt16, value: [UInt8], takenAt: Date, bond id: Int64, limit: Int,
                                          in db: Database) throws -> Int64 {
        try db.execute(
            sql: "INSERT INTO measurement (bond_id, value_handle, value, taken_at) VALUES (?, ?, ?, ?)",
            arguments: [id, Int(valueHandle), Data(value), takenAt.timeIntervalSinceReferenceDate])
        let sequence = db.lastInsertedRowID
        let kept = try Int.fetchOne(
            db, sql: "SELECT count(*) FROM measurement WHERE bond_id = ? AND value_handle = ?",
            arguments: [id, Int(valueHandle)]) ?? 0
        let excess = kept - limit
        if excess > 0 {
            try db.execute(
                sql: """
                    DELETE FROM measurement WHERE sequence IN (
                        SELECT sequence FROM measurement WHERE bond_id = ? AND value_handle = ?
                        ORDER BY sequence LIMIT ?)
                    """,
                arguments: [id, Int(valueHandle), excess])
            try db.execute(
                sql: "UPDATE bond SET dropped_measurements = dropped_measurements + ? WHERE id = ?",
                arguments: [excess, id])
        }
        return sequence
    }

    public func pendingMeasurements(for identity: DeviceAddress) async throws(BondStoreError) -> PendingMeasurements {
        let path = path
        return try await read { db in
            guard let id = try Self.bondID(identity, in: db) else { return .none }
            let dropped = try Int.fetchOne(db, sql: "SELECT dropped_measurements FROM bond WHERE id = ?", arguments: [id]) ?? 0
            let rows = try Row.fetchAll(
                db, sql: "SELECT sequence, value_handle, value, taken_at FROM measurement WHERE bond_id = ? ORDER BY sequence",
                arguments: [id])
            let measurements = try rows.map { row throws(BondStoreError) in
                let reader = RowReader(row: row, table: "measurement", path: path)
                let value: Data = try reader["value"]
                return StoredMeasurement(
                    sequence: try reader["sequence"], valueHandle: try reader["value_handle"], value: [UInt8](value),
                    takenAt: Date(timeIntervalSinceReferenceDate: try reader["taken_at"]))
            }
            return PendingMeasurements(measurements: measurements, dropped: dropped)
        }
    }

    public func acknowledgeMeasurements(through sequence: Int64, for identity: DeviceAddress) async throws(BondStoreError) {
        try await write { db in
            let id = try Self.requireBondID(identity, in: db)
            try db.execute(sql: "DELETE FROM measurement WHERE bond_id = ? AND sequence <= ?", arguments: [id, sequence])
            try db.execute(sql: "UPDATE bond SET dropped_measurements = 0 WHERE id = ?", arguments: [id])
        }
    }
}
