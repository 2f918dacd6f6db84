/// What a transport reports from its reader context.
public enum HCITransportEvent: Sendable {
    case packet(HCIPacket)
    /// The link to the controller is gone; `nil` for an orderly close requested by the host.
    case closed(HCITransportError?)
}

/// A byte pipe to a controller (UART, TCP, the Linux HCI user channel, or an in-process emulation).
///
/// Calling context: `send` may be called from any thread and writes synchronously, so a packet the
/// host counted against the controller's buffers is really on its way when `send` returns. Inbound
/// packets are delivered in order, from a single reader context owned by the transport.
public protocol HCITransport: AnyObject, Sendable {
    /// A short human-readable name for logs (`tcp:127.0.0.1:1234`, `hci:0`).
    var name: String { get }

    /// Opens the link and starts delivering inbound packets to `handler`. Returns once packets can be sent.
    func open(handler: @escaping @Sendable (HCITransportEvent) -> Void) async throws(HCITransportError)

    /// Writes one packet completely or throws.
    func send(_ packet: HCIPacket) throws(HCITransportError)

    /// Closes the link; the handler receives `.closed(nil)` once. Safe to call more than once.
    func close()
}
