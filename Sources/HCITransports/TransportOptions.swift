import BLECore

/// How a descriptor-based transport (TCP, UART, HCI user channel) queues and watches its writes.
public struct TransportOptions: Sendable {
    /// Packets waiting this long with nothing accepted by the controller are reported as a stall.
    public var stallTimeout: Duration = .seconds(2)
    /// Packets the write queue holds at most; ACL flow control keeps it far below this.
    public var maxQueuedPackets = 4096
    /// The clock stall detection runs on (a `ManualClock` in tests).
    public var clock: any HostClock = SystemClock.shared

    public init() {}
}
