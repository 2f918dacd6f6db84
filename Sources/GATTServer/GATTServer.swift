import ATT
import BLECore
import GATT
import HCI
import L2CAP
import Logging
import Synchronization

/// The ATT server role over an immutable `AttributeDatabase` (Core v5.4 Vol 3 Part F 3.4, Part G),
/// which `replaceDatabase` may swap as a whole for another (a service added or removed).
///
/// Each link has its own bounded inbound queue drained by one task, so PDUs of a link are handled
/// strictly in order while a request that awaits the delegate holds back only that link. Handle
/// Value Confirmations skip the queue. Permission checks use the link's security at the moment the
/// PDU arrived. The server keeps a strong reference to its delegate; a delegate that owns the
/// server must break the cycle itself (for example through an adapter that holds it weakly).
public final class GATTServer: Sendable {
    public struct Configuration: Sendable {
        /// Our Rx MTU, 23…517; values outside are clamped.
        public var mtu: Int = 247
        /// Entries in the prepare queue per link.
        public var maxPreparedWrites: Int = 64
        /// Octets of part values in the prepare queue per link.
        public var maxPreparedBytes: Int = 4096
        /// Commands (Write Command and the like) waiting per link; more are dropped and counted.
        public var maxQueuedCommands: Int = 32
        public init() {}
    }

    /// The database new requests are served from (the latest one passed to `replaceDatabase`).
    public var database: AttributeDatabase { state.withLock { $0.database } }
    let configuration: Configuration
    let delegate: any GATTServerDelegate
    let logger: Logger
    let output: ATTBearer
    let state: Mutex<ServerState>
    /// Our Rx MTU as sent in Exchange MTU Responses.
    let serverRxMTU: UInt16
    /// Checks Signed Write Commands (the whole PDU, signature included) against the client's CSRK.
    let signedWriteVerifier = Mutex<SignedWriteVerifier?>(nil)

    public init(database: AttributeDatabase, configuration: Configuration = .init(),
                delegate: any GATTServerDelegate, logger: Logger = Logger(label: "blesensor.gatt"),
                output: ATTBearer) {
        self.configuration = configuration
        self.delegate = delegate
        self.logger = logger
        self.output = output
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

    // MARK: Link lifecycle

    /// Starts serving a link.
    public func linkOpened(_ link: Link) {
        let inbound = LinkInbound(maxCommands: configuration.maxQueuedCommands)
        let added = state.withLock { state -> Bool in
            guard state.connections[link.id] == nil else { return false }
            state.connections[link.id] = ConnectionState(link: link, inbound: inbound)
            return true
        }
        guard added else { return }
        let worker = Task { [weak self] in
            while let item = await inbound.next() {
                guard let self else { return }
                let (database, databaseGeneration) = self.state.withLock { ($0.database, $0.databaseGeneration) }
                await self.process(item.bytes, context: ConnectionContext(link: link, security: item.security,
                                                                          database: database, databaseGeneration: databaseGeneration,
                                                                          answering: item.isRequest ? inbound : nil))
                // Also when nothing was answered (a request that could not even be decoded).
                if item.isRequest { inbound.requestAnswered() }
            }
        }
        state.withLock { state in
            if state.connections[link.id] != nil {
                state.connections[link.id]?.worker = worker
            } else {
                worker.cancel()
            }
        }
    }

    /// Stops serving a link: its queue, prepared writes, read snapshots and CCCD values go.
    /// A request still awaiting the delegate is not answered. State a bonded client keeps across
    /// connections is kept by the caller (`clientState(of:)`, `restoreClientState(_:on:)`), since
    /// a link identity is never reused.
    public func linkClosed(_ link: Link) {
        let entry = state.withLock { state -> ConnectionState? in
            state.clientConfigurations.peerDisconnected(link.id, bonded: false)
            return state.connections.removeValue(forKey: link.id)
        }
        guard let entry else { return }
        entry.inbound.finish()
        entry.worker?.cancel()
    }

    /// One inbound ATT PDU from L2CAP. PDUs of a link are processed strictly in order (requests
    /// may await the delegate); this call never blocks.
    public func receive(_ pdu: [UInt8], on link: Link) {
        guard let inbound = state.withLock({ $0.connections[link.id]?.inbound }) else {
            logger.warning("ATT: PDU on a link the server does not know; dropped (call linkOpened first)",
                           metadata: ["link": "\(link.id)", "pdu": "\(pdu.hexString)"])
            return
        }
        if pdu == [ATTOpcode.handleValueConfirmation.rawValue] {
            // Never queued behind application requests: the next indication waits for it.
            confirmationReceived(on: link)
            return
        }
        switch inbound.offer(pdu, security: link.security) {
        case .queued:
            break
        case .droppedRequest:
            logger.warning("ATT: request while another is outstanding (the client broke the sequential rule); dropped",
                           metadata: ["link": "\(link.id)", "pdu": "\(pdu.hexString)"])
        case .droppedCommand:
            logger.warning("ATT: more than \(configuration.maxQueuedCommands) commands waiting; dropped",
                           metadata: ["link": "\(link.id)", "pdu": "\(pdu.hexString)"])
        }
    }

    // MARK: Database replacement

    /// Serves `newDatabase` from now on, on every link at once (a service was added or removed
    /// after publication; announcing the change with Service Changed is the caller's job).
    ///
    /// Kept per link: the ATT MTU, Client Supported Features, and the CCCD values of
    /// characteristics that still exist in `newDatabase` (matched by `CharacteristicID`, so the
    /// built-in Service Changed subscription survives); CCCDs of characteristics that are gone are
    /// dropped, as are Server Characteristic Configurations of removed characteristics.
    /// Cleared: read snapshots (their handles may now name other attributes) and prepare queues.
    /// A prepared write cannot be applied to handles that changed meaning, so a non-empty queue is
    /// emptied and the link's next Execute Write Request with the "write" flag is answered with
    /// Invalid Handle (naming the first handle that was queued); "cancel" succeeds as usual.
    /// Clients that enabled robust caching become change-unaware (Core Vol 3 Part G 2.5.2.1).
    /// Requests already being processed finish against the database they started with.
    public func replaceDatabase(_ newDatabase: AttributeDatabase) {
        let unaware = state.withLock { state -> [Link] in
            var unaware: [Link] = []
            state.database = newDatabase
            state.databaseGeneration += 1
            state.clientConfigurations = state.clientConfigurations.carriedOver(to: newDatabase)
            state.serverConfigurations = state.serverConfigurations.filter { newDatabase.characteristic(id: $0.key)?.sccdHandle != nil }
            for id in Array(state.connections.keys) {
                guard var entry = state.connections[id] else { continue }
                entry.readSnapshots = [:]
                if let first = entry.prepareQueue.first, entry.discardedPreparedWrite == nil {
                    entry.discardedPreparedWrite = first.handle
                }
                entry.prepareQueue = []
                entry.preparedBytes = 0
                if entry.robustCachingEnabled {
                    entry.caching.databaseChanged()
                    unaware.append(entry.link)
                }
                state.connections[id] = entry
            }
            return unaware
        }
        for link in unaware { delegate.clientStateChanged(link: link) }
        logger.info("ATT: database replaced; \(newDatabase.lastHandle) attributes now")
    }

    // MARK: Queries

    public func configuration(of characteristic: CharacteristicID, on link: Link) -> ClientConfiguration {
        state.withLock { $0.clientConfigurations.configuration(of: characteristic, for: link.id) }
    }

    /// Links subscribed to notifications or indications of `characteristic`.
    public func subscribers(of characteristic: CharacteristicID) -> [(link: Link, configuration: ClientConfiguration)] {
        state.withLock { state in
            state.clientConfigurations.subscribers(of: characteristic).compactMap { id, configuration in
                state.connections[id].map { ($0.link, configuration) }
            }.sorted { $0.link.id < $1.link.id }
        }
    }

    /// Whether the client declared support for Multiple Handle Value Notifications (Client Supported Features bit 2).
    public func supportsMultipleHandleValueNotifications(_ link: Link) -> Bool {
        clientSupportedFeatures(of: link).first.map { $0 & ClientFeatureBits.multipleHandleValueNotifications != 0 } ?? false
    }

    /// The Client Supported Features value the client wrote on `link` (one zero octet until then).
    public func clientSupportedFeatures(of link: Link) -> [UInt8] {
        state.withLock { $0.connections[link.id]?.clientFeatures } ?? [0x00]
    }

    /// Whether the client is change-aware (Core Vol 3 Part G 2.5.2.1); always true for a client that
    /// did not enable robust caching.
    public func isChangeAware(_ link: Link) -> Bool {
        state.withLock { state in
            guard let entry = state.connections[link.id], entry.robustCachingEnabled else { return true }
            return entry.caching.changeAware
        }
    }

    /// Requests and commands dropped on `link` by the inbound bounds.
    public func inboundDrops(on link: Link) -> (requests: Int64, commands: Int64) {
        let counters = state.withLock { $0.connections[link.id]?.inbound.counters }
        return (counters?.requestsDropped ?? 0, counters?.commandsDropped ?? 0)
    }

    /// Links the server is serving now.
    public var openLinks: [Link] {
        state.withLock { $0.connections.values.map(\.link) }.sorted { $0.id < $1.id }
    }

    /// The Server Characteristic Configuration (broadcast bit) of `characteristic`, shared by all clients.
    public func serverConfiguration(of characteristic: CharacteristicID) -> UInt16 {
        state.withLock { $0.serverConfigurations[characteristic] } ?? 0
    }

    // MARK: Plumbing used by the request handlers

    /// Runs `body` on the link's state if it is still served and the database the request started
    /// with is still the one served (else its handles may mean other attributes now).
    func withCurrentDatabase<T>(_ context: ConnectionContext, _ body: (inout ConnectionState) -> T) -> T? {
        state.withLock { state in
            guard state.databaseGeneration == context.databaseGeneration,
                  var entry = state.connections[context.link.id] else {
                return nil
            }
            let result = body(&entry)
            state.connections[context.link.id] = entry
            return result
        }
    }

    /// Runs `body` on the link's state if it is still served.
    func withConnection<T>(_ context: ConnectionContext, _ body: (inout ConnectionState) -> T) -> T? {
        state.withLock { state in
            guard var entry = state.connections[context.link.id] else { return nil }
            let result = body(&entry)
            state.connections[context.link.id] = entry
            return result
        }
    }

    func currentMTU(_ context: ConnectionContext) -> Int {
        context.link.mtu
    }

    /// Sends `pdu` unless the link closed while the request was being handled; waits for room when
    /// the link's transmit queue is full, so a response is never dropped for lack of it.
    func reply(_ pdu: ATTPDU, context: ConnectionContext) async {
        let bytes = pdu.encode()
        context.answering?.requestAnswered()
        while state.withLock({ $0.connections[context.link.id] != nil }) {
            switch output.send(context.link, bytes) {
            case .sent, .closed:
                return
            case .full:
                await output.waitForRoom(context.link)
            }
        }
        logger.debug("ATT: link closed before the answer was ready; dropped",
                     metadata: ["link": "\(context.link.id)", "pdu": "\(pdu.opcode)"])
    }
}

/// Client Supported Features bits (Core Vol 3 Part G 7.2, Table 7.6), octet 0.
enum ClientFeatureBits {
    static let robustCaching: UInt8 = 0x01
    static let enhancedATTBearer: UInt8 = 0x02
    static let multipleHandleValueNotifications: UInt8 = 0x04
}
