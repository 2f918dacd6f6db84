import ATT
import BLECore
import GATT
import GATTNotify
import GATTServer
import HCI
import Logging
import Synchronization

/// The GATT server's delegate in the peripheral: reads and write batches become application
/// events that wait in `PendingRequests` for the answer; write commands become events within the
/// `CommandBudget`; CCCD writes update the subscriber table and the notification engine;
/// indication confirmations go to the engine, MTU changes to the application (the engine reads the
/// MTU from the link).
///
/// Calling context: delegate methods come from the GATT server's per-link tasks (confirmations
/// from the host's inbound context). State is behind a mutex.
final class PeripheralServerDelegate: GATTServerDelegate, Sendable {
    struct State {
        var engine: NotificationEngine? = nil
        var multipleNotificationSupport: (@Sendable (Link) -> Bool)? = nil
        var clientStateObserver: (@Sendable (Link, ClientStateChange) -> Void)? = nil
    }

    /// What changed in a client's GATT state (for keeping a bonded client's across connections).
    enum ClientStateChange: Sendable {
        case subscription(CharacteristicID, ClientConfiguration)
        /// Client Supported Features or change-awareness.
        case features
    }

    private let state = Mutex(State())
    private let centrals: ConnectedCentrals
    private let requests: PendingRequests
    private let subscribers: SubscriberTable
    private let commandBudget: CommandBudget
    private let logger: Logger
    private let emit: @Sendable (PeripheralEvent) -> Void

    init(centrals: ConnectedCentrals, requests: PendingRequests, subscribers: SubscriberTable, commandBudget: CommandBudget,
         logger: Logger, emit: @escaping @Sendable (PeripheralEvent) -> Void) {
        self.centrals = centrals
        self.requests = requests
        self.subscribers = subscribers
        self.commandBudget = commandBudget
        self.logger = logger
        self.emit = emit
    }

    func attach(_ engine: NotificationEngine, multipleNotificationSupport: @escaping @Sendable (Link) -> Bool) {
        state.withLock {
            $0.engine = engine
            $0.multipleNotificationSupport = multipleNotificationSupport
        }
    }

    /// Called synchronously after each change of a client's GATT state, restored ones included.
    func observeClientState(_ observer: @escaping @Sendable (Link, ClientStateChange) -> Void) {
        state.withLock { $0.clientStateObserver = observer }
    }

    // MARK: GATTServerDelegate

    func read(_ request: GATTReadRequest) async -> Result<[UInt8], ATTErrorCode> {
        guard let central = centrals.central(on: request.link.id) else { return .failure(.unlikelyError) }
        return await requests.read(on: request.link.id) { id in
            emit(.readRequest(ReadRequest(id: id, central: central,
                                          characteristic: request.characteristic, descriptor: request.descriptor)))
        }
    }

    func write(_ items: [GATTWriteItem], link: Link, kind: GATTWriteKind) async -> Result<Void, ATTErrorCode> {
        guard let central = centrals.central(on: link.id) else { return .failure(.unlikelyError) }
        let writes = items.map { WriteRequest(characteristic: $0.characteristic, descriptor: $0.descriptor, value: $0.value) }
        if kind == .command || kind == .signedCommand {
            // Nothing goes back on the air; the application is told and owes no answer. An
            // application that does not read its events cannot make commands pile up without bound.
            guard commandBudget.acquire() else {
                let dropped = commandBudget.noteDropped()
                if dropped == 1 || dropped % 100 == 0 {
                    logger.warning("write commands dropped: \(dropped) so far; the application is not taking its events")
                }
                return .success(())
            }
            emit(.writeRequests(WriteBatch(id: requests.answeredID(), central: central, requests: writes, kind: kind)))
            return .success(())
        }
        return await requests.write(on: link.id) { id in
            emit(.writeRequests(WriteBatch(id: id, central: central, requests: writes, kind: kind)))
        }
    }

    func subscriptionChanged(link: Link, characteristic: CharacteristicID, configuration: ClientConfiguration) {
        subscribers.update(link.id, characteristic: characteristic, configuration: configuration)
        let (engine, supports) = state.withLock { ($0.engine, $0.multipleNotificationSupport) }
        if let engine {
            // Clients declare Client Supported Features before subscribing (robust caching does it
            // first thing), so the flag is taken here rather than on every update; a client that
            // declares it later gets single notifications until its next CCCD write, which is valid.
            if let supports { engine.setMultipleHandleValueNotifications(supports(link), on: link.id) }
            // Values queued under a mode the client just turned off are not wanted any more.
            if let handle = subscribers.targets(of: characteristic)?.valueHandle, handle != 0 {
                engine.purge(characteristic: handle, on: link.id,
                             notifications: !configuration.contains(.notifications),
                             indications: !configuration.contains(.indications))
            }
        }
        state.withLock { $0.clientStateObserver }?(link, .subscription(characteristic, configuration))
        guard let central = centrals.central(on: link.id) else { return }
        emit(configuration.isEmpty ? .unsubscribed(central, characteristic) : .subscribed(central, characteristic))
    }

    func clientStateChanged(link: Link) {
        state.withLock { $0.clientStateObserver }?(link, .features)
    }

    func indicationConfirmed(link: Link) -> UInt16? {
        let engine = state.withLock { $0.engine }
        guard let confirmed = engine?.confirmationReceived(on: link.id) else {
            logger.warning("\(link.id): confirmation without an outstanding indication")
            return nil
        }
        return confirmed
    }

    /// The notification engine reads the new MTU from the link itself; the application hears of it.
    func mtuChanged(link: Link, mtu: Int) {
        if let central = centrals.central(on: link.id) { emit(.mtuChanged(central, mtu: mtu)) }
    }
}
