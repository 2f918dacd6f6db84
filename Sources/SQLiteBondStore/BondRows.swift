import BLECore
import Bonding
import Foundation
import GRDB

/// Bond <-> the bond table's explicit columns.
enum BondRows {
    static let columns = """
        address, address_type, ltk, ltk_ediv, ltk_rand, ltk_key_size, ltk_authenticated, ltk_secure_connections,
        peer_ltk, peer_ltk_ediv, peer_ltk_rand, peer_ltk_key_size, peer_ltk_authenticated, peer_ltk_secure_connections,
        peer_irk, peer_csrk, peer_sign_counter, local_csrk, local_sign_counter, created_at, last_seen
        """

    static func insert(_ bond: Bond, into db: Database) throws -> Int64 {
        let ours = bond.ltk, peer = bond.peerLTK
        let values: [(any DatabaseValueConvertible)?] = [
            bond.identity.address.description, Int(bond.identity.type.rawValue),
            ours.map { Data($0.key.bytes) }, ours.map { Int($0.ediv) }, ours.map { Int64(bitPattern: $0.rand) },
            ours?.keySize, ours?.authenticated, ours?.secureConnections,
            peer.map { Data($0.key.bytes) }, peer.map { Int($0.ediv) }, peer.map { Int64(bitPattern: $0.rand) },
            peer?.keySize, peer?.authenticated, peer?.secureConnections,
            bond.peerIRK.map { Data($0.bytes) }, bond.peerCSRK.map { Data($0.bytes) }, bond.peerSignCounter.map { Int64($0) },
            bond.localCSRK.map { Data($0.bytes) }, Int64(bond.localSignCounter),
            bond.createdAt.timeIntervalSinceReferenceDate, bond.lastSeen.timeIntervalSinceReferenceDate,
        ]
        let placeholders = Array(repeating: "?", count: values.count).joined(separator: ", ")
        try db.execute(sql: "INSERT INTO bond (\(columns)) VALUES (\(placeholders))", arguments: StatementArguments(values))
        return db.lastInsertedRowID
    }

    static func bond(from row: Row, path: String) throws(BondStoreError) -> Bond {
        let reader = RowReader(row: row, table: "bond", path: path)
        let addressText: String = try reader["address"]
        guard let address = BluetoothAddress(addressText) else { throw reader.corrupt("address") }
        let type: UInt8 = try reader["address_type"]
        guard let addressType = AddressType(rawValue: type) else { throw reader.corrupt("address_type") }
        let ltk = try key(prefix: "ltk", reader)
        let peerLTK = try key(prefix: "peer_ltk", reader)
        return Bond(
            identity: DeviceAddress(address, type: addressType), ltk: ltk, peerLTK: peerLTK,
            peerIRK: try reader.optionalKey("peer_irk"), peerCSRK: try reader.optionalKey("peer_csrk"),
            peerSignCounter: try reader["peer_sign_counter"], localCSRK: try reader.optionalKey("local_csrk"),
            localSignCounter: try reader["local_sign_counter"],
            createdAt: Date(timeIntervalSinceReferenceDate: try reader["created_at"]),
            lastSeen: Date(timeIntervalSinceReferenceDate: try reader["last_seen"]))
    }

    /// One of the two key column groups (`ltk_…`, `peer_ltk_…`); nil when its key is NULL.
    private static func key(prefix: String, _ reader: RowReader) throws(BondStoreError) -> LongTermKeyRecord? {
        guard let key = try reader.optionalKey(prefix) else { return nil }
        return LongTermKeyRecord(
            key: key, ediv: try reader["\(prefix)_ediv"], rand: UInt64(bitPattern: try reader["\(prefix)_rand"]),
            keySize: try reader["\(prefix)_key_size"], authenticated: try reader["\(prefix)_authenticated"],
            secureConnections: try reader["\(prefix)_secure_connections"])
    }
}

/// Reads columns without GRDB's crashing subscripts, and reports a bad value by column name only: GRDB's own
/// decoding errors print the row, which would print keys.
struct RowReader {
    let row: Row
    let table: String
    let path: String

    subscript<Value: DatabaseValueConvertible>(_ column: String) -> Value {
        get throws(BondStoreError) {
            do {
                return try row.decode(Value.self, forColumn: column)
            } catch {
                throw corrupt(column)
            }
        }
    }

    func key(_ column: String) throws(BondStoreError) -> Key128 {
        guard let key = try optionalKey(column) else { throw corrupt(column) }
        return key
    }

    func optionalKey(_ column: String) throws(BondStoreError) -> Key128? {
        let data: Data? = try self[column]
        guard let data else { return nil }
        guard let key = Key128([UInt8](data)) else { throw corrupt(column) }
        return key
    }

    func corrupt(_ column: String) -> BondStoreError {
        .corrupt(path: path, reason: "\(table).\(column) holds a value this version cannot read")
    }
}
