import HCI
import Synchronization

/// Feeds the notification engine's PDUs to an `ACLFlowController`, keeping the ACL queue short so
/// that values wait in the engine (where they coalesce) rather than in the ACL queue (where they
/// cannot): at most `maximumQueuedPDUs` PDUs per connection wait there for credits.
///
/// Calling context: as `NotificationSink`. `enqueue` may synchronously invoke the controller's
/// drain observers, one of which re-enters `NotificationEngine.pump()`; the engine tolerates that
/// because it never holds its lock while calling `trySend`.
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

    public func trySend(_ l2capPDU: consuming [UInt8], on link: Link) -> Bool {
        guard flowController.queuedPDUs(on: link) < maximumQueuedPDUs else { return false }
        do {
            try flowController.enqueue(consume l2capPDU, on: link, headroom: headroom)
            return true
        } catch {
            // queueFull, linkClosed or notConfigured: keep the value in the engine; a drained
            // queue or the link's removal resolves it.
            return false
        }
    }

    public func packetsInFlight(on link: Link) -> Int {
        flowController.packetsInFlight(on: link)
    }
}
