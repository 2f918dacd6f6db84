import HCI
import Synchronization

/// Feeds the notification engine's PDUs to an `ACLFlowController`, keeping the ACL queue short so
/// that values wait in the engine (where they coalesce) rather than in the ACL queue (where they
/// cannot): at most `maximumQueuedPDUs` PDUs per connection wait there for credits.
///
/// Calling context: as `NotificationSink`. `enqueue` may synchronously invoke the controller's
/// `onQueueDrained`, which (through `NotificationPumpRelay`) re-enters `NotificationEngine.pump()`;
/// the engine tolerates that because it never holds its lock while calling `trySend`.
public struct ACLNotificationSink: NotificationSink {
    public let flowController: ACLFlowController
    public let maximumQueuedPDUs: Int

    public init(flowController: ACLFlowController, maximumQueuedPDUs: Int = 1) {
        self.flowController = flowController
        self.maximumQueuedPDUs = max(1, maximumQueuedPDUs)
    }

    /// Room for the H4 indicator and the ACL header: a PDU that fits one ACL packet goes to the
    /// transport in the buffer the engine built.
    public var headroom: Int { ACLFlowController.frameHeadroom }

    public func trySend(_ l2capPDU: consuming [UInt8], on connection: UInt16) -> Bool {
        guard flowController.queuedPDUs(on: connection) < maximumQueuedPDUs else { return false }
        do {
            try flowController.enqueue(consume l2capPDU, on: connection, headroom: headroom)
            return true
        } catch {
            // queueFull, unknownConnection or notConfigured: keep the value in the engine; a drained
            // queue or the connection's removal resolves it.
            return false
        }
    }

    public func packetsInFlight(on connection: UInt16) -> Int {
        flowController.packetsInFlight(on: connection)
    }
}

/// Breaks the construction cycle between `ACLFlowController` (which takes its `onQueueDrained`
/// callback at init) and the engine (which takes the controller's sink):
///
///     let relay = NotificationPumpRelay()
///     let acl = ACLFlowController(send: transport.write, onQueueDrained: relay.queueDrained)
///     let engine = NotificationEngine(sink: ACLNotificationSink(flowController: acl))
///     relay.attach(engine)
///
/// Holds the engine weakly; drained signals before `attach` are ignored (nothing was queued yet).
public final class NotificationPumpRelay: Sendable {
    private struct WeakEngine: @unchecked Sendable {
        // NotificationEngine is Sendable; the box only exists because `weak` needs a stored var.
        weak var engine: NotificationEngine?
    }

    private let target = Mutex(WeakEngine())

    public init() {}

    public func attach(_ engine: NotificationEngine) {
        target.withLock { $0.engine = engine }
    }

    /// Pass as `ACLFlowController`'s `onQueueDrained`.
    public func queueDrained(_ connection: UInt16) {
        let engine = target.withLock { $0.engine }
        engine?.pump()
    }
}
