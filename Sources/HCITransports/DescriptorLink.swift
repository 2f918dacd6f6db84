#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import BLECore
import CBluetoothShim
import Foundation
import HCI
import Synchronization

/// One open descriptor to a controller plus the dedicated reader thread that serves it.
///
/// The reader thread blocks in poll() on the descriptor and a wake pipe, so `stop()` unblocks it
/// at once. It is the only place that emits `.closed`, which makes "exactly one `.closed`" hold
/// whether the host closed the link or the peer went away. The descriptor is closed by the reader
/// only after every in-flight `send` has left, so a send never writes to a recycled descriptor.
///
/// `@unchecked Sendable`: the descriptor numbers are immutable; the "released" flag that guards
/// using them lives in a `Mutex`, and the wake pipe is itself thread-safe.
final class DescriptorLink: @unchecked Sendable {
    enum Framing: Sendable {
        /// An H4 byte stream cut into packets by `H4StreamFramer` (UART, TCP).
        case stream
        /// One complete H4 packet per read and write (Linux HCI socket).
        case datagram
    }

    let name: String
    private let descriptor: Int32
    private let framing: Framing
    private let isSocket: Bool
    private let endOfStreamMessage: String
    private let stopPipe: WakePipe
    /// `true` once the descriptor is about to be closed; held for the whole of each write.
    private let writer = Mutex<Bool>(false)

    /// Takes ownership of `descriptor` (closes it on failure too). It must be non-blocking.
    init(
        descriptor: Int32, name: String, framing: Framing, isSocket: Bool, endOfStreamMessage: String
    ) throws(HCITransportError) {
        do {
            stopPipe = try WakePipe()
        } catch {
            closeDescriptor(descriptor)
            throw error
        }
        self.descriptor = descriptor
        self.name = name
        self.framing = framing
        self.isSocket = isSocket
        self.endOfStreamMessage = endOfStreamMessage
    }

    /// Starts the reader thread; `handler` gets every packet, then exactly one `.closed`.
    func start(handler: @escaping @Sendable (HCITransportEvent) -> Void) {
        let thread = Thread { [self] in
            let reason = readUntilClosed(handler: handler)
            release()
            handler(.closed(reason))
        }
        thread.name = "hci-reader \(name)"
        thread.start()
    }

    /// Closes a link whose reader was never started (open was abandoned half way).
    func discard() {
        release()
    }

    /// Asks the reader to finish; it reports `.closed(nil)` unless the link already failed.
    func stop() {
        stopPipe.signal()
    }

    /// Writes the whole packet, waiting for the descriptor to drain when it is full.
    func send(_ bytes: [UInt8]) throws(HCITransportError) {
        guard !stopPipe.isSignalled else { throw .notOpen(name) }
        try writer.withLock { released throws(HCITransportError) in
            guard !released else { throw .notOpen(name) }
            try writeAll(bytes)
        }
    }

    // MARK: - Reader thread

    private func readUntilClosed(handler: @Sendable (HCITransportEvent) -> Void) -> HCITransportError? {
        var framer = H4StreamFramer()
        // A datagram holds at most one maximum-size packet; streams are read in the same chunks.
        var buffer = [UInt8](repeating: 0, count: H4StreamFramer.maximumPacketSize)
        var fds = [
            pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0),
            pollfd(fd: stopPipe.readDescriptor, events: Int16(POLLIN), revents: 0),
        ]
        while true {
            fds[0].revents = 0
            fds[1].revents = 0
            guard SystemCall.poll(&fds, timeout: -1) >= 0 else {
                return SystemCall.failure("poll on \(name)", errno: errno)
            }
            if fds[1].revents != 0 { return nil }
            if fds[0].revents & Int16(POLLNVAL) != 0 {
                return SystemCall.failure("poll on \(name)", errno: EBADF)
            }
            guard fds[0].revents != 0 else { continue }

            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { return .disconnected(endOfStreamMessage) }
            if count < 0 {
                let code = errno
                if code == EINTR || code == EAGAIN || code == EWOULDBLOCK { continue }
                return .disconnected("reading \(name) failed: \(SystemCall.message(code)) (errno \(code))")
            }
            let chunk = buffer[0..<count]
            switch framing {
            case .stream:
                do {
                    try framer.feed(chunk) { handler(.packet($0)) }
                } catch {
                    return error
                }
            case .datagram:
                guard let packet = HCIPacket(h4Bytes: Array(chunk)) else {
                    return .framingLost(
                        "\(name) delivered a packet with unknown indicator 0x\([chunk[chunk.startIndex]].hexString) (expected 0x01-0x05); reopen the transport"
                    )
                }
                handler(.packet(packet))
            }
        }
    }

    /// Wakes blocked senders, waits for them to leave, then closes the descriptors.
    private func release() {
        stopPipe.signal()
        writer.withLock { $0 = true }
        closeDescriptor(descriptor)
        stopPipe.close()
    }

    // MARK: - Writing

    private func writeAll(_ bytes: [UInt8]) throws(HCITransportError) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                return bls_send(descriptor, base + offset, raw.count - offset, isSocket ? 1 : 0)
            }
            if written > 0 {
                if framing == .datagram && written != bytes.count {
                    throw .systemCallFailed(
                        operation: "write to \(name)", errno: EMSGSIZE,
                        message: "the kernel accepted \(written) of \(bytes.count) bytes of one packet")
                }
                offset += written
                continue
            }
            let code = written < 0 ? errno : EIO
            switch code {
            case EINTR:
                continue
            case EAGAIN, EWOULDBLOCK:
                try waitUntilWritable()
            case _ where SystemCall.meansLinkLost(code):
                throw .disconnected("writing to \(name) failed: \(SystemCall.message(code)) (errno \(code))")
            default:
                throw SystemCall.failure("write to \(name)", errno: code)
            }
        }
    }

    /// Blocks until the descriptor can take more bytes, or throws if the link is being closed.
    private func waitUntilWritable() throws(HCITransportError) {
        var fds = [
            pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0),
            pollfd(fd: stopPipe.readDescriptor, events: Int16(POLLIN), revents: 0),
        ]
        guard SystemCall.poll(&fds, timeout: -1) >= 0 else {
            throw SystemCall.failure("poll on \(name)", errno: errno)
        }
        if fds[1].revents != 0 { throw .notOpen(name) }
        // POLLERR/POLLHUP fall through: the next write reports the precise errno.
    }
}
