import HCI

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
