import GRDB

/// The bond database's tables. A migration, once released, never changes: later versions add "v2"...
enum Schema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            // Times are REAL seconds since 2001-01-01 UTC (Foundation's reference date), which round-trips a
            // Date exactly; read them with datetime(x + 978307200, 'unixepoch', 'subsec').
            // UInt64 rand values are stored bit-cast into SQLite's signed 64-bit INTEGER.
            try db.execute(sql: """
                CREATE TABLE local_identity (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    irk BLOB NOT NULL CHECK (length(irk) = 16),
                    address TEXT NOT NULL,
                    csrk BLOB NOT NULL CHECK (length(csrk) = 16)
                );
                CREATE TABLE bond (
                    id INTEGER PRIMARY KEY,
                    address TEXT NOT NULL,
                    address_type INTEGER NOT NULL CHECK (address_type IN (0, 1)),
                    ltk BLOB NOT NULL CHECK (length(ltk) = 16),
                    ltk_ediv INTEGER NOT NULL,
                    ltk_rand INTEGER NOT NULL,
                    ltk_key_size INTEGER NOT NULL CHECK (ltk_key_size BETWEEN 7 AND 16),
                    ltk_authenticated BOOLEAN NOT NULL,
                    ltk_secure_connections BOOLEAN NOT NULL,
                    peer_ltk BLOB CHECK (length(peer_ltk) = 16),
                    peer_ltk_ediv INTEGER,
                    peer_ltk_rand INTEGER,
                    peer_ltk_key_size INTEGER CHECK (peer_ltk_key_size BETWEEN 7 AND 16),
                    peer_ltk_authenticated BOOLEAN,
                    peer_ltk_secure_connections BOOLEAN,
                    peer_irk BLOB CHECK (length(peer_irk) = 16),
                    peer_csrk BLOB CHECK (length(peer_csrk) = 16),
                    peer_sign_counter INTEGER,
                    local_csrk BLOB CHECK (length(local_csrk) = 16),
                    local_sign_counter INTEGER NOT NULL,
                    created_at REAL NOT NULL,
                    last_seen REAL NOT NULL,
                    -- measurements dropped at the bound since the peer last acknowledged
                    dropped_measurements INTEGER NOT NULL DEFAULT 0,
                    UNIQUE (address, address_type),
                    CHECK ((peer_ltk IS NULL) = (peer_ltk_ediv IS NULL)
                        AND (peer_ltk IS NULL) = (peer_ltk_rand IS NULL)
                        AND (peer_ltk IS NULL) = (peer_ltk_key_size IS NULL)
                        AND (peer_ltk IS NULL) = (peer_ltk_authenticated IS NULL)
                        AND (peer_ltk IS NULL) = (peer_ltk_secure_connections IS NULL))
                );
                CREATE TABLE peer_gatt (
                    bond_id INTEGER PRIMARY KEY REFERENCES bond(id) ON DELETE CASCADE,
                    client_supported_features BLOB NOT NULL,
                    change_aware BOOLEAN NOT NULL,
                    database_hash BLOB CHECK (length(database_hash) = 16)
                );
                CREATE TABLE cccd (
                    bond_id INTEGER NOT NULL REFERENCES bond(id) ON DELETE CASCADE,
                    handle INTEGER NOT NULL,
                    value INTEGER NOT NULL CHECK (value != 0),
                    PRIMARY KEY (bond_id, handle)
                ) WITHOUT ROWID;
                CREATE TABLE changed_while_away (
                    bond_id INTEGER NOT NULL REFERENCES bond(id) ON DELETE CASCADE,
                    value_handle INTEGER NOT NULL,
                    PRIMARY KEY (bond_id, value_handle)
                ) WITHOUT ROWID;
                -- AUTOINCREMENT: a sequence is never reused, so a late acknowledgement cannot remove newer data.
                CREATE TABLE measurement (
                    sequence INTEGER PRIMARY KEY AUTOINCREMENT,
                    bond_id INTEGER NOT NULL REFERENCES bond(id) ON DELETE CASCADE,
                    value_handle INTEGER NOT NULL,
                    value BLOB NOT NULL,
                    taken_at REAL NOT NULL
                );
                CREATE INDEX measurement_by_peer ON measurement (bond_id, value_handle, sequence);
                """)
        }
        migrator.registerMigration("v2") { db in
            // The central role: a legacy bond made as central may hold only the peripheral's key, so
            // `ltk` becomes nullable (with its columns as one group, like `peer_ltk`) and a bond needs
            // at least one of the two. SQLite cannot relax NOT NULL in place: the table is rebuilt
            // (the documented 12-step procedure; GRDB defers foreign key checks during migrations),
            // keeping every row and its id, so the tables that reference bond(id) stay valid.
            try db.execute(sql: """
                CREATE TABLE bond_v2 (
                    id INTEGER PRIMARY KEY,
                    address TEXT NOT NULL,
                    address_type INTEGER NOT NULL CHECK (address_type IN (0, 1)),
                    ltk BLOB CHECK (length(ltk) = 16),
                    ltk_ediv INTEGER,
                    ltk_rand INTEGER,
                    ltk_key_size INTEGER CHECK (ltk_key_size BETWEEN 7 AND 16),
                    ltk_authenticated BOOLEAN,
                    ltk_secure_connections BOOLEAN,
                    peer_ltk BLOB CHECK (length(peer_ltk) = 16),
                    peer_ltk_ediv INTEGER,
                    peer_ltk_rand INTEGER,
                    peer_ltk_key_size INTEGER CHECK (peer_ltk_key_size BETWEEN 7 AND 16),
                    peer_ltk_authenticated BOOLEAN,
                    peer_ltk_secure_connections BOOLEAN,
                    peer_irk BLOB CHECK (length(peer_irk) = 16),
                    peer_csrk BLOB CHECK (length(peer_csrk) = 16),
                    peer_sign_counter INTEGER,
                    local_csrk BLOB CHECK (length(local_csrk) = 16),
                    local_sign_counter INTEGER NOT NULL,
                    created_at REAL NOT NULL,
                    last_seen REAL NOT NULL,
                    dropped_measurements INTEGER NOT NULL DEFAULT 0,
                    UNIQUE (address, address_type),
                    CHECK (ltk IS NOT NULL OR peer_ltk IS NOT NULL),
                    CHECK ((ltk IS NULL) = (ltk_ediv IS NULL)
                        AND (ltk IS NULL) = (ltk_rand IS NULL)
                        AND (ltk IS NULL) = (ltk_key_size IS NULL)
                        AND (ltk IS NULL) = (ltk_authenticated IS NULL)
                        AND (ltk IS NULL) = (ltk_secure_connections IS NULL)),
                    CHECK ((peer_ltk IS NULL) = (peer_ltk_ediv IS NULL)
                        AND (peer_ltk IS NULL) = (peer_ltk_rand IS NULL)
                        AND (peer_ltk IS NULL) = (peer_ltk_key_size IS NULL)
                        AND (peer_ltk IS NULL) = (peer_ltk_authenticated IS NULL)
                        AND (peer_ltk IS NULL) = (peer_ltk_secure_connections IS NULL))
                );
                INSERT INTO bond_v2 SELECT * FROM bond;
                DROP TABLE bond;
                ALTER TABLE bond_v2 RENAME TO bond;
                """)
        }
        return migrator
    }
}
