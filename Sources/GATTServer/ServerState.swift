import ATT
import GATT

/// One Prepare Write Request waiting in a connection's queue.
struct PreparedWrite: Sendable, Equatable {
    let handle: UInt16
    let offset: UInt16
    let part: [UInt8]
}

/// What the server keeps for one open connection. Only that connection's task changes it (besides
/// open/close), so a request that awaits the delegate never sees another request's half-done work.
struct ConnectionState: Sendable {
    /// Distinguishes a reused connection handle from the link it had before.
    let generation: UInt64
    let inbound: AsyncStream<[UInt8]>.Continuation
    var worker: Task<Void, Never>?
    var mtu = ATTConstants.defaultLEMTU
    var mtuExchanged = false
    /// Client Supported Features as last written (Core Vol 3 Part G 7.2); one zero octet until then.
    var clientFeatures: [UInt8] = [0x00]
    var prepareQueue: [PreparedWrite] = []
    var preparedBytes = 0
    /// The first handle of a prepare queue emptied by `replaceDatabase`: the next Execute Write
    /// (flag "write") fails with Invalid Handle naming it, so the client never believes a long
    /// write that was partly prepared against the old handles succeeded.
    var discardedPreparedWrite: UInt16?
    /// Values of delegate-served attributes kept between the blobs of one long read.
    var readSnapshots: [UInt16: [UInt8]] = [:]
}

/// Everything mutable in the server, behind one lock.
struct ServerState: Sendable {
    /// The database new requests are served from; swapped as a whole by `replaceDatabase`.
    var database: AttributeDatabase
    /// Counts replacements, so work begun against an older database leaves no trace in the new one.
    var databaseGeneration: UInt64 = 0
    var connections: [UInt16: ConnectionState] = [:]
    var nextGeneration: UInt64 = 1
    var clientConfigurations: ClientConfigurationStore<UInt16>
    /// Server Characteristic Configuration values: server-wide, not per client (Core Vol 3 Part G 3.3.3.4).
    var serverConfigurations: [CharacteristicID: UInt16] = [:]

    init(database: AttributeDatabase) {
        self.database = database
        clientConfigurations = ClientConfigurationStore(database: database)
    }
}

/// Identifies the link a PDU arrived on, so a late answer never lands on a reused connection handle,
/// and the database the PDU is served from: a request finishes against the database it started
/// with even if `replaceDatabase` runs while it awaits the application.
struct ConnectionContext: Sendable {
    let connection: UInt16
    let generation: UInt64
    let database: AttributeDatabase
    let databaseGeneration: UInt64
}

/// A request that fails with an Error Response naming `handle`.
struct RequestError: Error, Equatable {
    let handle: UInt16
    let code: ATTErrorCode

    init(_ handle: UInt16, _ code: ATTErrorCode) {
        self.handle = handle
        self.code = code
    }
}
