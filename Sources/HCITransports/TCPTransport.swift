import BLECore
import Foundation
import HCI
import Logging

/// H4 over TCP to a controller server (an emulator, `btproxy`, a remote board), `tcp:HOST:PORT`.
/// We are the client; `open` keeps retrying until the server listens, so start order does not matter.
///
/// Checked `Sendable` (no `@unchecked` needed): all mutable state lives in `TransportLifecycle`'s mutex.
public final class TCPTransport: HCITransport, Sendable {
    public let host: String
    public let port: UInt16
    public let name: String
    private let logger: Logger
    private let lifecycle: TransportLifecycle
    private let options: TransportOptions

    public init(host: String, port: UInt16, logger: Logger, options: TransportOptions = TransportOptions()) {
        self.options = options
        self.host = host
        self.port = port
        self.name = TransportSpecification.tcp(host: host, port: port).description
        self.logger = logger
        self.lifecycle = TransportLifecycle(name: name)
    }

    public func open(handler: @escaping @Sendable (HCITransportEvent) -> Void) async throws(HCITransportError) {
        let interrupt = try lifecycle.beginOpen()
        let connector = TCPConnector(host: host, port: port, name: name, logger: logger)
        let outcome = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<TCPConnector.Outcome, Never>) in
                NamedThread.start("hci-connect \(name)") {
                    continuation.resume(returning: connector.connectWithRetry(interrupt: interrupt))
                }
            }
        } onCancel: {
            interrupt.signal()
        }
        switch outcome {
        case let .connected(fd):
            // A connect can win the race against cancellation; the caller asked to stop, so honour it.
            if Task.isCancelled {
                closeDescriptor(fd)
                lifecycle.failOpen()
                throw .cancelled("connecting to \(name)")
            }
            let loop: DescriptorEventLoop
            do {
                loop = try DescriptorEventLoop(
                    descriptor: fd, name: name, framing: .stream, isSocket: true,
                    endOfStreamMessage: "tcp peer closed the connection", options: options)
            } catch {
                lifecycle.failOpen()
                throw error
            }
            try lifecycle.finishOpen(loop, handler: handler)
            logger.info("connected to controller at \(name)")
        case let .failed(error):
            lifecycle.failOpen()
            throw error
        case .interrupted:
            lifecycle.failOpen()
            throw .cancelled("connecting to \(name)")
        }
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

    /// Packets waiting to be written, and (system calls, packets) written so far; nil when not open.
    var queuedPackets: Int { lifecycle.runningLoop?.queuedPackets ?? 0 }
    var writeStatistics: (calls: Int64, packets: Int64)? { lifecycle.runningLoop?.writeStatistics }
    var timesWaitedForCredits: Int? { lifecycle.runningLoop?.timesWaitedForCredits }
}
