import HCI
import Synchronization

/// Where the notification engine hands finished L2CAP PDUs (basic header, ATT channel).
///
/// Calling context: `trySend` is called by whichever thread is running the engine's pump, never with
/// the engine's lock held, so an implementation may synchronously call back into the engine (for
/// example `pump()` from a "queue drained" callback). It must not block.
public protocol NotificationSink: Sendable {
    /// Accepts the PDU for transmission on `link`, or returns `false` without keeping it when
    /// the link's transmit queue has no room. After refusing, the sink must make the owner call
    /// `NotificationEngine.pump()` once it can accept again (for ACL: when the link's queue drains).
    func trySend(_ l2capPDU: consuming [UInt8], on link: Link) -> Bool

    /// Packets of this link the controller holds but has not completed (credits in flight),
    /// shown in statistics. Sinks without that knowledge report 0.
    func packetsInFlight(on link: Link) -> Int
    /// Bytes the engine leaves free in front of every PDU it hands over, so a lower layer can write
    /// its own headers in place instead of copying the PDU (ACL: H4 indicator and ACL header).
    var headroom: Int { get }
}

extension NotificationSink {
    public func packetsInFlight(on link: Link) -> Int { 0 }
    public var headroom: Int { 0 }
}

// MARK: - The sink of the shipped stack: the ACL flow controller

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
