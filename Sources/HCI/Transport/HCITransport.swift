/// What a transport reports from its reader context.
public enum HCITransportEvent: Sendable {
    case packet(HCIPacket)
    /// Packets have been waiting to be written for the transport's stall timeout and the
    /// controller accepted nothing (a TCP peer that stopped reading, a UART with CTS held).
    /// Reported once per stall; the link stays open.
    case stalled(HCITransportError)
    /// The kernel refused a packet as malformed (`.packetRefused`): a bug in this host. The packet
    /// was dropped and the link stays open; the host's timeouts recover what it belonged to.
    case refused(HCITransportError)
    /// The link to the controller is gone; `nil` for an orderly close requested by the host.
    case closed(HCITransportError?)
}

/// The host's ACL buffers in the controller: how many it has, how many hold packets now, and how
/// many PDUs wait in the host for one.
public struct ACLCredits: Sendable, Equatable {
    public var inFlight: Int
    public var capacity: Int
    public var waiting: Int

    public init(inFlight: Int, capacity: Int, waiting: Int = 0) {
        self.inFlight = inFlight
        self.capacity = capacity
        self.waiting = waiting
    }
}

/// A byte pipe to a controller (UART, TCP, the Linux HCI user channel, or an in-process emulation).
///
/// Calling context: `send` may be called from any thread, including under a lock: it never
/// blocks. It queues the packet on a bounded per-transport queue that a writer (a dedicated
/// thread or the emulation's queue) drains in order, several packets per system call when several
/// wait. Inbound packets are delivered in order, from a single reader context owned by the
/// transport, which must not be blocked either.
public protocol HCITransport: AnyObject, Sendable {
    /// A short human-readable name for logs (`tcp:127.0.0.1:1234`, `hci:0`).
    var name: String { get }

    /// Opens the link and starts delivering inbound packets to `handler`. Returns once packets can be sent.
    func open(handler: @escaping @Sendable (HCITransportEvent) -> Void) async throws(HCITransportError)

    /// Queues one packet for writing. Throws when the transport is closed or its queue is full.
    func send(_ packet: HCIPacket) throws(HCITransportError)

    /// Drops queued ACL packets for `handle` that have not started to be written: their link
    /// closed, and the controller may give the handle to a new link.
    func discardQueuedACL(handle: UInt16)

    /// Drops every queued packet that has not started to be written (the controller is reset).
    func discardQueuedPackets()

    /// Runs `body`; packets it sends are written together when it returns, in as few system calls
    /// as possible (a timer tick that updates several characteristics). Scopes nest and are shared
    /// by every thread: while any is open, all sends wait, and the last scope to end writes them.
    /// Keep scopes to a short burst of sends; never wait inside one.
    func combiningWrites<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T

    /// Closes the link; the handler receives `.closed(nil)` once. Safe to call more than once.
    func close()

    /// Tells the transport how the host's ACL credits stand (its flow control count), so a reader
    /// that waits for credit returns to gather waits only where several can come.
    func setCreditSource(_ source: @escaping @Sendable () -> ACLCredits)
}

extension HCITransport {
    /// Transports that write synchronously or hand packets straight to an emulation queue nothing.
    public func discardQueuedACL(handle: UInt16) {}
    public func discardQueuedPackets() {}
    public func combiningWrites<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T { try body() }
    /// Transports that do not moderate their reads need no count.
    public func setCreditSource(_ source: @escaping @Sendable () -> ACLCredits) {}
}
