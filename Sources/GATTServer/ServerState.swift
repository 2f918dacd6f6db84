import Synchronization
import ATT
import GATT
import HCI

/// One Prepare Write Request waiting in a link's queue.
struct PreparedWrite: Sendable, Equatable {
    let handle: UInt16
    let offset: UInt16
    let part: [UInt8]
}

/// What the server keeps for one open link. Only that link's worker changes it (besides open,
/// close and database replacement), so a request that awaits the delegate never sees another
/// request's half-done work.
struct ConnectionState: Sendable {
    let link: Link
    let inbound: LinkInbound
    var worker: Task<Void, Never>?
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
    var caching = RobustCaching()
    /// Characteristics whose CCCD the client wrote on this link (zero included): state restored
    /// from an earlier connection never overrides them, being older.
    var writtenConfigurations: Set<CharacteristicID> = []

    var robustCachingEnabled: Bool { (clientFeatures.first ?? 0) & ClientFeatureBits.robustCaching != 0 }
}

/// Change-awareness of one client (Core Vol 3 Part G 2.5.2.1), meaningful once it enabled robust
/// caching. A client is change-aware when the link starts; a bonded client's state from an earlier
/// connection may say otherwise (`GATTServer.restoreClientState`).
struct RobustCaching: Sendable, Equatable {
    var changeAware = true
    /// It read the Database Hash while change-unaware: its next request makes it change-aware.
    var databaseHashRead = false
    /// It was answered Database Out Of Sync: its next request makes it change-aware.
    var outOfSyncSent = false

    mutating func databaseChanged() {
        self = RobustCaching(changeAware: false)
    }
}

/// Everything mutable in the server, behind one lock.
struct ServerState: Sendable {
    /// The database new requests are served from; swapped as a whole by `replaceDatabase`.
    var database: AttributeDatabase
    /// Counts replacements, so work begun against an older database leaves no trace in the new one.
    var databaseGeneration: UInt64 = 0
    var connections: [LinkID: ConnectionState] = [:]
    var clientConfigurations: ClientConfigurationStore<LinkID>
    /// Server Characteristic Configuration values: server-wide, not per client (Core Vol 3 Part G 3.3.3.4).
    var serverConfigurations: [CharacteristicID: UInt16] = [:]

    init(database: AttributeDatabase) {
        self.database = database
        clientConfigurations = ClientConfigurationStore(database: database)
    }
}

/// Identifies the link a PDU arrived on (a late answer never lands on another link) with the
/// security it had then, and the database the PDU is served from: a request finishes against the
/// database it started with even if `replaceDatabase` runs while it awaits the application.
struct ConnectionContext: Sendable {
    let link: Link
    let security: LinkSecurity
    let database: AttributeDatabase
    let databaseGeneration: UInt64
    /// Set when the PDU is a request: its slot is freed just before the answer goes out, because
    /// the client may send its next request the moment it has the answer.
    var answering: LinkInbound? = nil
    /// Set while a request is handled: effects the client must see only after the answer.
    var afterAnswer: AfterAnswer? = nil
}

/// Work that waits until a request's answer is on its way: a subscription's first notification
/// must not overtake the Write Response that turned it on.
final class AfterAnswer: Sendable {
    private let actions = Mutex<[@Sendable () -> Void]>([])

    func add(_ action: @escaping @Sendable () -> Void) {
        actions.withLock { $0.append(action) }
    }

    func run() {
        let due = actions.withLock { actions in
            defer { actions = [] }
            return actions
        }
        for action in due { action() }
    }
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
