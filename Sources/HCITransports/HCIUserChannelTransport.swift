import HCI
import Logging

/// Exclusive raw access to a local adapter through the Linux HCI user channel (`hci:N`).
/// The kernel delivers one H4 packet (indicator included) per read and takes one per write.
/// Opening takes the adapter from the kernel's stack (bluetoothd) itself: see `AdapterTakeover`.
///
/// Checked `Sendable` (no `@unchecked` needed): all mutable state lives in `TransportLifecycle`'s mutex.
public final class HCIUserChannelTransport: HCITransport, Sendable {
    public let index: UInt16
    public let name: String
    private let logger: Logger
    private let lifecycle: TransportLifecycle
    private let options: TransportOptions
    private let probe: BluetoothAdapterProbe

    /// `probe` supplies the system calls and sysfs (tests pass fakes); `options.clock` times the retries.
    public init(index: UInt16, logger: Logger, options: TransportOptions = TransportOptions(),
                probe: BluetoothAdapterProbe = BluetoothAdapterProbe()) {
        self.options = options
        self.index = index
        self.name = TransportSpecification.hciUserChannel(index: index).description
        self.logger = logger
        self.lifecycle = TransportLifecycle(name: name)
        self.probe = probe
    }

    private var device: String { "hci\(index)" }

    public func open(handler: @escaping @Sendable (HCITransportEvent) -> Void) async throws(HCITransportError) {
        _ = try lifecycle.beginOpen()
        let loop: DescriptorEventLoop
        do {
            let takeover = AdapterTakeover(index: index, probe: probe, clock: options.clock, logger: logger)
            let fd = try await takeover.take { [lifecycle] in lifecycle.isClosed }
            // Closes the descriptor itself should it fail.
            loop = try DescriptorEventLoop(
                descriptor: fd, name: name, framing: .datagram, isSocket: false,
                endOfStreamMessage: "\(device) was removed or reset by the kernel", options: options)
        } catch {
            lifecycle.failOpen()
            throw error
        }
        try lifecycle.finishOpen(loop, handler: handler)
        logger.info("opened HCI user channel on \(device)")
    }

    public func send(_ packet: HCIPacket) throws(HCITransportError) {
        try lifecycle.loop().send(packet.h4Bytes)
    }

    public func discardQueuedACL(handle: UInt16) { lifecycle.discardQueuedACL(handle: handle) }
    public func discardQueuedPackets() { lifecycle.discardQueuedPackets() }
    public func combiningWrites<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T { try lifecycle.combiningWrites(body) }
    public func setCreditSource(_ source: @escaping @Sendable () -> ACLCredits) { lifecycle.setCreditSource(source) }

    public func close() {
        lifecycle.close()
    }
}
