import ATT
import BLECore
import GATT
import HCI
import L2CAP
import Logging
import Synchronization

/// The GATT client role on one link (Core Vol 3 Part G 4, over ATT Part F).
///
/// Calling context: any thread. Procedures are `async` and run strictly one after another in FIFO
/// order, each holding the bearer for all its transactions (so a long write's prepare queue is never
/// interleaved with another procedure); every request is bounded by the transaction timeout on the
/// injected clock. The facade hands `receive` every client-bound PDU (`isClientBound`), calls
/// `roomAvailable()` when the link's transmit queue drains and `linkClosed()` when the link goes.
/// Nothing is sent while the client's lock is held, so a peer answering synchronously is fine.
/// A procedure cannot be abandoned half-way by task cancellation: ATT has no way to cancel a
/// request, so it completes (or times out) as the spec requires.
public final class GATTClient: Sendable {
    public struct Configuration: Sendable {
        /// Core Vol 3 Part F 3.3.3.
        public var transactionTimeout: Duration = .seconds(30)
        public var clock: any HostClock
        /// Our Rx MTU as offered in Exchange MTU (23…517).
        public var rxMTU: Int = 247
        /// Values buffered in `updates` before the oldest are dropped.
        public var updateBufferLimit: Int = 1024

        public init(transactionTimeout: Duration = .seconds(30), clock: any HostClock = SystemClock.shared, rxMTU: Int = 247,
                    updateBufferLimit: Int = 1024) {
            self.transactionTimeout = transactionTimeout
            self.clock = clock
            self.rxMTU = rxMTU
            self.updateBufferLimit = updateBufferLimit
        }
    }

    public let link: Link
    let configuration: Configuration
    let output: ATTBearer
    let logger: Logger
    let state = Mutex(ClientState())

    /// Notifications and indications in arrival order. Bounded (`updateBufferLimit`, newest kept):
    /// a consumer that falls behind loses the oldest values. Indications are confirmed on arrival,
    /// before they are queued here, so a dropped indication is never re-sent by the server; every
    /// such drop is counted (`droppedUpdates`), logged and announced as `.indicationDropped`.
    /// Finishes when the link closes.
    public let updates: AsyncStream<ValueUpdate>
    let updateSink: AsyncStream<ValueUpdate>.Continuation
    /// Service changes, timeouts and malformed PDUs. Finishes when the link closes.
    public let events: AsyncStream<GATTClientEvent>
    let eventSink: AsyncStream<GATTClientEvent>.Continuation
    /// Yields once each time the link has room for Write Without Response again after a write found
    /// it full (CoreBluetooth's `peripheralIsReady(toSendWriteWithoutResponse:)`).
    public let readyToSendWriteWithoutResponse: AsyncStream<Void>
    let readySink: AsyncStream<Void>.Continuation

    public init(link: Link, configuration: Configuration = .init(), output: ATTBearer,
                logger: Logger = Logger(label: "blesensor.gatt-client")) {
        self.link = link
        self.configuration = configuration
        self.output = output
        self.logger = logger
        (updates, updateSink) = AsyncStream.makeStream(of: ValueUpdate.self,
                                                       bufferingPolicy: .bufferingNewest(max(1, configuration.updateBufferLimit)))
        (events, eventSink) = AsyncStream.makeStream(of: GATTClientEvent.self, bufferingPolicy: .bufferingNewest(256))
        (readyToSendWriteWithoutResponse, readySink) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    deinit {
        updateSink.finish()
        eventSink.finish()
        readySink.finish()
    }

    /// The ATT_MTU in use on the link (23 until an MTU exchange).
    public var mtu: Int { link.mtu }

    /// Values dropped from `updates` because the consumer fell behind.
    public var droppedUpdates: (notifications: Int, indications: Int) {
        state.withLock { ($0.droppedNotifications, $0.droppedIndications) }
    }

    /// Every primary service discovered so far (and not invalidated by Service Changed), by handle.
    public var discoveredServices: [RemoteService] {
        state.withLock { $0.cache.services.values.sorted { $0.handles.lowerBound < $1.handles.lowerBound } }
    }

    /// The value handle of the peer's Service Changed characteristic, learnt from characteristic
    /// discovery of the GATT service or set by the facade (for example from a bonded peer's cache).
    public var serviceChangedHandle: UInt16? {
        get { state.withLock { $0.serviceChangedHandle } }
    }

    public func setServiceChangedHandle(_ handle: UInt16?) {
        state.withLock { $0.serviceChangedHandle = handle }
    }

    /// Whether the peer's PDU belongs to the client role: responses, Error Responses, notifications
    /// and indications. Requests, commands, confirmations and unknown opcodes go to the server role.
    public static func isClientBound(_ pdu: [UInt8]) -> Bool {
        guard let first = pdu.first else { return false }
        let opcode = ATTOpcode(first)
        switch opcode {
        case .errorResponse, .handleValueNotification, .handleValueIndication, .multipleHandleValueNotification:
            return true
        default:
            return responseOpcodes.contains(opcode)
        }
    }

    static let responseOpcodes: Set<ATTOpcode> = Set(ATTOpcode.allKnown.compactMap { $0.isRequest ? $0.responseOpcode : nil })

    /// The link is gone: every pending and queued procedure fails with `.disconnected`, the streams end.
    public func linkClosed() {
        let failed = state.withLock { state in state.shut(.disconnected) }
        failed.resumeAll(with: .disconnected)
        updateSink.finish()
        eventSink.finish()
        readySink.finish()
    }

    func emit(_ event: GATTClientEvent) {
        eventSink.yield(event)
    }
}
