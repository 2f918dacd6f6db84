import HCI
import Logging
import Synchronization

/// Records every packet crossing another transport into a btsnoop file (`--btsnoop FILE`).
///
/// Recording costs an encode and a buffer append on the caller's thread; the file is written on the
/// writer's own queue. Capture failures (disk full) are logged once and never break the controller
/// link: the capture is a diagnostic, the link is the product. Checked `Sendable`: state lives in a `Mutex`.
public final class SnoopingTransport: HCITransport, Sendable {
    public let inner: any HCITransport
    public let writer: BTSnoopWriter
    private let logger: Logger
    private let failureReported = Mutex(false)

    public var name: String { inner.name }

    public init(wrapping inner: any HCITransport, writer: BTSnoopWriter, logger: Logger) {
        self.inner = inner
        self.writer = writer
        self.logger = logger
    }

    /// Creates the capture file at `path`; throws `snoopFileFailed` if it cannot.
    public convenience init(wrapping inner: any HCITransport, path: String, logger: Logger) throws(HCITransportError) {
        self.init(wrapping: inner, writer: try BTSnoopWriter(path: path), logger: logger)
    }

    public func open(handler: @escaping @Sendable (HCITransportEvent) -> Void) async throws(HCITransportError) {
        try await inner.open { [self] event in
            if case let .packet(packet) = event { capture(packet, .received) }
            handler(event)
        }
    }

    public func send(_ packet: HCIPacket) throws(HCITransportError) {
        try inner.send(packet)
        capture(packet, .sent)
    }

    public func discardQueuedACL(handle: UInt16) {
        inner.discardQueuedACL(handle: handle)
    }

    public func discardQueuedPackets() {
        inner.discardQueuedPackets()
    }

    public func combiningWrites<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        try inner.combiningWrites(body)
    }

    public func setCreditSource(_ source: @escaping @Sendable () -> ACLCredits) {
        inner.setCreditSource(source)
    }

    /// Closes the inner transport and writes out the capture.
    public func close() {
        inner.close()
        writer.flush()
    }

    private func capture(_ packet: HCIPacket, _ direction: BTSnoopWriter.Direction) {
        do {
            try writer.record(packet, direction: direction)
        } catch {
            let first = failureReported.withLock { reported in
                defer { reported = true }
                return !reported
            }
            if first { logger.error("\(error); packets are no longer being captured") }
        }
    }
}
