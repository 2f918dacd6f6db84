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
import Synchronization

/// Writes a btsnoop capture (RFC 1761 layout, datalink 1002 = H4) that Wireshark and btmon read.
/// Each record goes out with a single write(2) and nothing is buffered, so a crash loses nothing.
///
/// `@unchecked Sendable`: the only mutable state is the descriptor, held in a `Mutex` that also
/// serialises records so they never interleave.
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

    public let path: String
    private let descriptor: Mutex<Int32?>
    private let now: @Sendable () -> Int64

    /// Creates (or truncates) `path` and writes the file header.
    /// - Parameter unixMicroseconds: the record clock; wall-clock time by default.
    public init(
        path: String, unixMicroseconds: @escaping @Sendable () -> Int64 = BTSnoopWriter.wallClockMicroseconds
    ) throws(HCITransportError) {
        self.path = path
        self.now = unixMicroseconds
        let fd = bls_create_file(path)
        guard fd >= 0 else {
            throw .snoopFileFailed(path: path, reason: SystemCall.message(errno))
        }
        descriptor = Mutex(fd)
        var header = ByteWriter()
        header.append(contentsOf: Array("btsnoop".utf8) + [0])
        header.append(contentsOf: Self.bigEndian(UInt64(1), width: 4))
        header.append(contentsOf: Self.bigEndian(UInt64(Self.datalinkH4), width: 4))
        try write(header.bytes)
    }

    /// Appends one record for `packet`.
    public func record(_ packet: HCIPacket, direction: Direction) throws(HCITransportError) {
        var flags: UInt32 = direction == .received ? 1 : 0
        if packet.type == .command || packet.type == .event { flags |= 2 }
        let length = UInt64(packet.h4Bytes.count)
        let timestamp = UInt64(bitPattern: now() &+ Self.epochOffsetMicroseconds)
        var record = ByteWriter()
        record.append(contentsOf: Self.bigEndian(length, width: 4))  // original length
        record.append(contentsOf: Self.bigEndian(length, width: 4))  // included length
        record.append(contentsOf: Self.bigEndian(UInt64(flags), width: 4))
        record.append(contentsOf: Self.bigEndian(0, width: 4))  // cumulative drops
        record.append(contentsOf: Self.bigEndian(timestamp, width: 8))
        record.append(contentsOf: packet.h4Bytes)
        try write(record.bytes)
    }

    /// Closes the file; later records fail with `snoopFileFailed`. Idempotent.
    public func close() {
        descriptor.withLock { fd in
            if let open = fd { closeDescriptor(open) }
            fd = nil
        }
    }

    deinit { close() }

    public static let wallClockMicroseconds: @Sendable () -> Int64 = {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1_000_000 + Int64(spec.tv_nsec) / 1000
    }

    private func write(_ bytes: [UInt8]) throws(HCITransportError) {
        try descriptor.withLock { fd throws(HCITransportError) in
            guard let open = fd else { throw .snoopFileFailed(path: path, reason: "the capture was closed") }
            var offset = 0
            // One write(2) normally takes the whole record; the loop only covers a short write.
            while offset < bytes.count {
                let written = bytes.withUnsafeBytes { raw -> Int in
                    guard let base = raw.baseAddress else { return 0 }
                    #if canImport(Darwin)
                    return Darwin.write(open, base + offset, raw.count - offset)
                    #elseif canImport(Musl)
                    return Musl.write(open, base + offset, raw.count - offset)
                    #else
                    return Glibc.write(open, base + offset, raw.count - offset)
                    #endif
                }
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else {
                    throw .snoopFileFailed(path: path, reason: SystemCall.message(written < 0 ? errno : EIO))
                }
                offset += written
            }
        }
    }

    private static func bigEndian(_ value: UInt64, width: Int) -> [UInt8] {
        (0..<width).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
    }
}
