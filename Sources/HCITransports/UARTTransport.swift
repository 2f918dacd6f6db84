#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import CBluetoothShim
import HCI
import Logging

/// H4 over a serial port (`uart:/dev/ttyAMA0?baud=115200&flow=on`), raw 8N1, optional RTS/CTS.
///
/// Checked `Sendable` (no `@unchecked` needed): all mutable state lives in `TransportLifecycle`'s mutex.
public final class UARTTransport: HCITransport, Sendable {
    public let path: String
    public let baudRate: UInt32
    public let flowControl: Bool
    public let name: String
    private let logger: Logger
    private let lifecycle: TransportLifecycle
    private let options: TransportOptions

    public init(path: String, baudRate: UInt32, flowControl: Bool, logger: Logger, options: TransportOptions = TransportOptions()) {
        self.options = options
        self.path = path
        self.baudRate = baudRate
        self.flowControl = flowControl
        self.name = TransportSpecification.uart(path: path, baudRate: baudRate, flowControl: flowControl).description
        self.logger = logger
        self.lifecycle = TransportLifecycle(name: name)
    }

    public func open(handler: @escaping @Sendable (HCITransportEvent) -> Void) async throws(HCITransportError) {
        _ = try lifecycle.beginOpen()
        let loop: DescriptorEventLoop
        do {
            let fd = try openPort()
            loop = try DescriptorEventLoop(
                descriptor: fd, name: name, framing: .stream, isSocket: false,
                endOfStreamMessage: "serial port \(path) closed (was the adapter unplugged?)", options: options)
        } catch {
            lifecycle.failOpen()
            throw error
        }
        try lifecycle.finishOpen(loop, handler: handler)
        logger.info("opened \(name)")
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

    /// Opens and configures the tty; the descriptor is non-blocking so close() can interrupt writes.
    private func openPort() throws(HCITransportError) -> Int32 {
        let fd = bls_open_serial(path)
        guard fd >= 0 else {
            let code = errno
            switch code {
            case ENOENT, ENODEV, ENXIO, ENOTDIR:
                throw .deviceNotFound(path)
            case EACCES, EPERM:
                throw .permissionDenied(
                    path, hint: "add the user to the dialout group (`sudo usermod -aG dialout $USER`, then log in again) or run as root")
            case EBUSY:
                throw .adapterBusy(path, hint: "another program holds the serial port; find it with `sudo fuser \(path)` and stop it")
            default:
                throw SystemCall.failure("open \(path)", errno: code)
            }
        }
        guard bls_serial_configure_raw(fd, baudRate, flowControl ? 1 : 0) == 0 else {
            let code = errno
            closeDescriptor(fd)
            switch code {
            case ENOTTY:
                throw .invalidSpecification(name, reason: "\(path) is not a serial port")
            case EINVAL:
                throw .invalidSpecification(
                    name, reason: "baud rate \(baudRate) is not supported here; supported rates: \(SerialBaudRates.listDescription)")
            default:
                throw SystemCall.failure("configure serial port \(path)", errno: code)
            }
        }
        return fd
    }
}
