#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import BLECore
import CBluetoothShim
import HCI
import Dispatch
import Synchronization

/// Writes a btsnoop capture (RFC 1761 layout, datalink 1002 = H4) that Wireshark and btmon read.
///
/// Off the hot path: `record` only encodes the record (its timestamp is taken there) and appends it
/// to a buffer; a private serial queue writes what accumulated, many records per write(2), a hop
/// later. A crash loses at most the records of that hop. If the disk cannot keep up and more than
/// `maxBufferedBytes` wait, records are dropped and counted in the btsnoop "cumulative drops" field.
/// `flush()` (and `close()`) return once everything recorded so far is in the file.
///
/// `@unchecked Sendable`: the descriptor is only touched on `queue`; the buffer is in a `Mutex`.
public final class BTSnoopWriter: @unchecked Sendable {
    public enum Direction: Sendable {
        /// Host to controller.
        case sent
        /// Controller to host.
        case received
    }

    public static let datalinkH4: UInt32 = 1002
    /// Microseconds from 0000-01-01 (the btsnoop epoch) to 1970-01-01.
    public static let epochOffsetMicroseconds: Int64 = 0x00dc_ddb3_0f2f_8000
    public static let maxBufferedBytes = 8 << 20

    private struct Pending {
        var bytes: [UInt8] = []
        var scheduled = false
        var closed = false
        var drops: UInt32 = 0
        /// The first write failure, reported to later `record` calls.
        var failure: HCITransportError?
    }

    public let path: String
    private var descriptor: Int32?
    private let pending = Mutex(Pending())
    private let queue: DispatchQueue
    private let now: @Sendable () -> Int64

    /// Creates `path`, which must not exist yet, mode 0600 (a capture holds every pairing's keys),
    /// and writes the file header. An existing file or a symlink is refused, never overwritten.
    /// - Parameter unixMicroseconds: the record clock; wall-clock time by default.
    public init(
        path: String, unixMicroseconds: @escaping @Sendable () -> Int64 = BTSnoopWriter.wallClockMicroseconds
    ) throws(HCITransportError) {
        self.path = path
        self.now = unixMicroseconds
        self.queue = DispatchQueue(label: "btsnoop \(path)")
        let fd = bls_create_file(path)
        guard fd >= 0 else {
            let code = errno
            let reason = code == EEXIST || code == ELOOP
                ? "it exists already; captures hold every key and are never overwritten: remove it or name a new file"
                : SystemCall.message(code)
            throw .snoopFileFailed(path: path, reason: reason)
        }
        descriptor = fd
        var header = Array("btsnoop".utf8) + [0]
        Self.appendBigEndian(1, width: 4, to: &header)  // version
        Self.appendBigEndian(UInt64(Self.datalinkH4), width: 4, to: &header)
        if let error = writeAll(header, to: fd) {
            closeDescriptor(fd)
            descriptor = nil
            throw error
        }
    }

    /// Queues one record for `packet`. Throws when the capture is closed or an earlier write failed.
    public func record(_ packet: HCIPacket, direction: Direction) throws(HCITransportError) {
        var flags: UInt32 = direction == .received ? 1 : 0
        if packet.type == .command || packet.type == .event { flags |= 2 }
        let length = UInt64(packet.h4Bytes.count)
        let timestamp = UInt64(bitPattern: now() &+ Self.epochOffsetMicroseconds)
        let schedule = try pending.withLock { pending throws(HCITransportError) -> Bool in
            guard !pending.closed else { throw .snoopFileFailed(path: path, reason: "the capture was closed") }
            if let failure = pending.failure { throw failure }
            guard pending.bytes.count + 24 + packet.h4Bytes.count <= Self.maxBufferedBytes else {
                pending.drops &+= 1
                return false
            }
            Self.appendBigEndian(length, width: 4, to: &pending.bytes)  // original length
            Self.appendBigEndian(length, width: 4, to: &pending.bytes)  // included length
            Self.appendBigEndian(UInt64(flags), width: 4, to: &pending.bytes)
            Self.appendBigEndian(UInt64(pending.drops), width: 4, to: &pending.bytes)  // cumulative drops
            Self.appendBigEndian(timestamp, width: 8, to: &pending.bytes)
            pending.bytes.append(contentsOf: packet.h4Bytes)
            defer { pending.scheduled = true }
            return !pending.scheduled
        }
        if schedule { queue.async { self.writePending() } }
    }

    /// Returns once every record queued so far is written.
    public func flush() {
        queue.sync { writePending() }
    }

    /// Writes what is queued and closes the file; later records fail with `snoopFileFailed`. Idempotent.
    public func close() {
        queue.sync {
            writePending()
            pending.withLock { $0.closed = true }
            if let fd = descriptor { closeDescriptor(fd) }
            descriptor = nil
        }
    }

    deinit {
        if let fd = descriptor { closeDescriptor(fd) }
    }

    public static let wallClockMicroseconds: @Sendable () -> Int64 = {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1_000_000 + Int64(spec.tv_nsec) / 1000
    }

    /// On `queue`: takes the buffer and writes it with as few system calls as it takes.
    private func writePending() {
        let bytes = pending.withLock { pending -> [UInt8] in
            pending.scheduled = false
            defer { pending.bytes = [] }
            return pending.bytes
        }
        guard !bytes.isEmpty else { return }
        guard let fd = descriptor else { return }
        if let error = writeAll(bytes, to: fd) {
            pending.withLock { if $0.failure == nil { $0.failure = error } }
        }
    }

    private func writeAll(_ bytes: [UInt8], to fd: Int32) -> HCITransportError? {
        var offset = 0
        // One write(2) normally takes the whole batch; the loop only covers a short write.
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                #if canImport(Darwin)
                return Darwin.write(fd, base + offset, raw.count - offset)
                #elseif canImport(Musl)
                return Musl.write(fd, base + offset, raw.count - offset)
                #else
                return Glibc.write(fd, base + offset, raw.count - offset)
                #endif
            }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else {
                return .snoopFileFailed(path: path, reason: SystemCall.message(written < 0 ? errno : EIO))
            }
            offset += written
        }
        return nil
    }

    private static func appendBigEndian(_ value: UInt64, width: Int, to bytes: inout [UInt8]) {
        for shift in (0..<width).reversed() { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(shift)))) }
    }
}
