import ATT
import BLECore
import GATT
import Logging
import Synchronization

/// The ATT server role over an immutable `AttributeDatabase` (Core v5.4 Vol 3 Part F 3.4, Part G),
/// which `replaceDatabase` may swap as a whole for another (a service added or removed).
///
/// Each connection has its own inbound queue drained by one task, so PDUs of a connection are handled
/// strictly in order while a request that awaits the delegate holds back only that connection.
/// The server keeps a strong reference to its delegate; a delegate that owns the server must break
/// the cycle itself (for example through an adapter that holds it weakly).
public final class GATTServer: Sendable {
    public struct Configuration: Sendable {
        /// Our Rx MTU, 23…517; values outside are clamped.
        public var mtu: Int = 247
        /// Entries in the prepare queue per connection.
        public var maxPreparedWrites: Int = 64
        /// Octets of part values in the prepare queue per connection.
        public var maxPreparedBytes: Int = 4096
        public init() {}
    }

    /// The database new requests are served from (the latest one passed to `replaceDatabase`).
    public var database: AttributeDatabase { state.withLock { $0.database } }
    let configuration: Configuration
    let delegate: any GATTServerDelegate
    let logger: Logger
    let send: @Sendable (_ connection: UInt16, _ pdu: [UInt8]) -> Void
    let state: Mutex<ServerState>
    /// Our Rx MTU as sent in Exchange MTU Responses.
    let serverRxMTU: UInt16

    /// `send` hands one ATT PDU (no L2CAP header) to L2CAP for a connection; it must not block.
    public init(database: AttributeDatabase, configuration: Configuration = .init(),
                delegate: any GATTServerDelegate, logger: Logger = Logger(label: "blesensor.gatt"),
                send: @escaping @Sendable (_ connection: UInt16, _ pdu: [UInt8]) -> Void) {
        self.configuration = configuration
        self.delegate = delegate
        self.logger = logger
        self.send = send
        self.state = Mutex(ServerState(database: database))
        self.serverRxMTU = UInt16(min(max(configuration.mtu, ATTConstants.defaultLEMTU), ATTConstants.maximumMTU))
    }

    deinit {
        let connections = state.withLock { $0.connections }
        for entry in connections.values {
            entry.inbound.finish()
            entry.worker?.cancel()
        }
    }

    // MARK: Connection lifecycle

    /// Starts serving a connection. Opening a handle that is already open restarts it from scratch.
    public func connectionOpened(_ connection: UInt16) {
        if state.withLock({ $0.connections[connection] != nil }) {
            logger.warning("ATT: connection opened twice; dropping the old state",
                           metadata: ["connection": "\(connection)"])
            connectionClosed(connection)
        }
        let (stream, continuation) = AsyncStream.makeStream(of: [UInt8].self)
        let generation = state.withLock { state -> UInt64 in
            let generation = state.nextGeneration
            state.nextGeneration += 1
            state.connections[connection] = ConnectionState(generation: generation, inbound: continuation)
            return generation
        }
        let worker = Task { [weak self] in
            for await pdu in stream {
                guard let self else { return }
                let (database, databaseGeneration) = self.state.withLock { ($0.database, $0.databaseGeneration) }
                await self.process(pdu, context: ConnectionContext(connection: connection, generation: generation,
                                                                   database: database, databaseGeneration: databaseGeneration))
            }
        }
        state.withLock { state in
            if state.connections[connection]?.generation == generation {
                state.connections[connection]?.worker = worker
            } else {
                worker.cancel()
            }
        }
    }

    /// Stops serving a connection: its queue, prepared writes, read snapshots and CCCD values go.
    /// A request still awaiting the delegate is not answered.
    public func connectionClosed(_ connection: UInt16) {
        let entry = state.withLock { state -> ConnectionState? in
            // Bonding does not exist yet, so every client's configuration ends with its link.
            state.clientConfigurations.peerDisconnected(connection, bonded: false)
            return state.connections.removeValue(forKey: connection)
        }
        guard let entry else { return }
        entry.inbound.finish()
        entry.worker?.cancel()
    }

    /// One inbound ATT PDU from L2CAP. PDUs of a connection are processed strictly in order (requests
    /// may await the delegate); this call never blocks.
    public func receive(_ pdu: [UInt8], on connection: UInt16) {
        guard let inbound = state.withLock({ $0.connections[connection]?.inbound }) else {
            logger.warning("ATT: PDU on a connection the server does not know; dropped (call connectionOpened first)",
                           metadata: ["connection": "\(connection)", "pdu": "\(pdu.hexString)"])
            return
        }
        inbound.yield(pdu)
    }

    // MARK: Database replacement

    /// Serves `newDatabase` from now on, on every connection at once (a service was added or removed
    /// after publication; announcing the change with Service Changed is the caller's job).
    ///
    /// Kept per connection: the ATT MTU, Client Supported Features, and the CCCD values of
    /// characteristics that still exist in `newDatabase` (matched by `CharacteristicID`, so the
    /// built-in Service Changed subscription survives); CCCDs of characteristics that are gone are
    /// dropped, as are Server Characteristic Configurations of removed characteristics.
    /// Cleared: read snapshots (their handles may now name other attributes) and prepare queues.
    /// A prepared write cannot be applied to handles that changed meaning, so a non-empty queue is
    /// emptied and the connection's next Execute Write Request with the "write" flag is answered
    /// with Invalid Handle (naming the first handle that was queued); "cancel" succeeds as usual.
    /// Requests already being processed finish against the database they started with.
    public func replaceDatabase(_ newDatabase: AttributeDatabase) {
        state.withLock { state in
            state.database = newDatabase
            state.databaseGeneration += 1
            state.clientConfigurations = state.clientConfigurations.carriedOver(to: newDatabase)
            state.serverConfigurations = state.serverConfigurations.filter { newDatabase.characteristic(id: $0.key)?.sccdHandle != nil }
            for connection in Array(state.connections.keys) {
                guard var entry = state.connections[connection] else { continue }
                entry.readSnapshots = [:]
                if let first = entry.prepareQueue.first, entry.discardedPreparedWrite == nil {
                    entry.discardedPreparedWrite = first.handle
                }
                entry.prepareQueue = []
                entry.preparedBytes = 0
                state.connections[connection] = entry
            }
        }
        logger.info("ATT: database replaced; \(newDatabase.lastHandle) attributes now")
    }

    // MARK: Queries

    /// The ATT MTU of a connection: 23 until an Exchange MTU completes.
    public func mtu(of connection: UInt16) -> Int {
        state.withLock { $0.connections[connection]?.mtu } ?? ATTConstants.defaultLEMTU
    }

    public func configuration(of characteristic: CharacteristicID, on connection: UInt16) -> ClientConfiguration {
        state.withLock { $0.clientConfigurations.configuration(of: characteristic, for: connection) }
    }

    /// Connections subscribed to notifications or indications of `characteristic`.
    public func subscribers(of characteristic: CharacteristicID) -> [UInt16: ClientConfiguration] {
        state.withLock { $0.clientConfigurations.subscribers(of: characteristic) }
    }

    /// Whether the client declared support for Multiple Handle Value Notifications (Client Supported Features bit 2).
    public func supportsMultipleHandleValueNotifications(_ connection: UInt16) -> Bool {
        clientSupportedFeatures(of: connection).first.map { $0 & ClientFeatureBits.multipleHandleValueNotifications != 0 } ?? false
    }

    /// The Client Supported Features value the client wrote on `connection` (one zero octet until then).
    public func clientSupportedFeatures(of connection: UInt16) -> [UInt8] {
        state.withLock { $0.connections[connection]?.clientFeatures } ?? [0x00]
    }

    /// Connections the server is serving now.
    public var openConnections: Set<UInt16> {
        state.withLock { Set($0.connections.keys) }
    }

    /// The Server Characteristic Configuration (broadcast bit) of `characteristic`, shared by all clients.
    public func serverConfiguration(of characteristic: CharacteristicID) -> UInt16 {
        state.withLock { $0.serverConfigurations[characteristic] } ?? 0
    }

    // MARK: Plumbing used by the request handlers

    /// Runs `body` on the connection's state if it is still the same link and the database the request
    /// started with is still the one served (else its handles may mean other attributes now).
    func withCurrentDatabase<T>(_ context: ConnectionContext, _ body: (inout ConnectionState) -> T) -> T? {
        state.withLock { state in
            guard state.databaseGeneration == context.databaseGeneration,
                  var entry = state.connections[context.connection], entry.generation == context.generation else {
                return nil
            }
            let result = body(&entry)
            state.connections[context.connection] = entry
            return result
        }
    }

    /// Runs `body` on the connection's state if it is still the same link.
    func withConnection<T>(_ context: ConnectionContext, _ body: (inout ConnectionState) -> T) -> T? {
        state.withLock { state in
            guard var entry = state.connections[context.connection], entry.generation == context.generation else {
                return nil
            }
            let result = body(&entry)
            state.connections[context.connection] = entry
            return result
        }
    }

    func currentMTU(_ context: ConnectionContext) -> Int {
        withConnection(context) { $0.mtu } ?? ATTConstants.defaultLEMTU
    }

    /// Sends `pdu` unless the link closed while the request was being handled.
    func reply(_ pdu: ATTPDU, context: ConnectionContext) {
        let open = state.withLock { $0.connections[context.connection]?.generation == context.generation }
        guard open else {
            logger.debug("ATT: connection closed before the answer was ready; dropped",
                         metadata: ["connection": "\(context.connection)", "pdu": "\(pdu.opcode)"])
            return
        }
        send(context.connection, pdu.encode())
    }
}

/// Client Supported Features bits (Core Vol 3 Part G 7.2, Table 7.6), octet 0.
enum ClientFeatureBits {
    static let robustCaching: UInt8 = 0x01
    static let enhancedATTBearer: UInt8 = 0x02
    static let multipleHandleValueNotifications: UInt8 = 0x04
}
