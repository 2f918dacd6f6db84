import BLECore

/// How a descriptor-based transport (TCP, UART, HCI user channel) queues and watches its writes.
public struct TransportOptions: Sendable {
    /// Packets waiting this long with nothing accepted by the controller are reported as a stall.
    public var stallTimeout: Duration = .seconds(2)
    /// Packets the write queue holds at most; ACL flow control keeps it far below this.
    public var maxQueuedPackets = 4096
    /// The clock stall detection runs on, and credit returns are timed with (a `ManualClock` in tests).
    public var clock: any HostClock = SystemClock.shared
    /// After a read that only returned ACL credits (Number Of Completed Packets), wait up to this
    /// long before reading again, so a stream of credit returns costs one wake-up per window
    /// instead of one per packet. LE connection events are at least 7.5 ms apart, so a millisecond
    /// costs no air time; zero reads as soon as anything arrives. Rounded up to whole milliseconds.
    public var creditReturnModeration: Duration = .milliseconds(1)

    public init() {}
}
