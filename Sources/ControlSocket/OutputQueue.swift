#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Bytes waiting to be written to one client. Holds whole encoded lines, shared (copy-on-write)
/// with every other client they were queued for, so an update is encoded and stored once.
struct OutputQueue {
    enum WriteOutcome: Equatable {
        /// Everything was written.
        case drained
        /// The socket is full; wait for POLLOUT.
        case blocked
        /// The peer is gone or the socket failed.
        case failed(errno: Int32)
    }

    private var chunks: [[UInt8]] = []
    /// Index of the first chunk not fully written; chunks before it are compacted away lazily.
    private var head = 0
    /// Bytes of `chunks[head]` already written.
    private var offset = 0
    private(set) var byteCount = 0

    var isEmpty: Bool { byteCount == 0 }

    mutating func append(_ chunk: [UInt8]) {
        guard !chunk.isEmpty else { return }
        chunks.append(chunk)
        byteCount += chunk.count
    }

    /// Writes as much as the socket takes without blocking.
    mutating func write(to fd: Int32) -> WriteOutcome {
        while head < chunks.count {
            let chunk = chunks[head]
            let sent = chunk.withUnsafeBytes { bytes in
                // MSG_NOSIGNAL: a client that vanished must not raise SIGPIPE in the daemon.
                send(fd, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
            }
            if sent < 0 {
                let code = errno
                if code == EINTR { continue }
                if code == EAGAIN || code == EWOULDBLOCK { compact(); return .blocked }
                return .failed(errno: code)
            }
            offset += sent
            byteCount -= sent
            if offset == chunk.count {
                head += 1
                offset = 0
            }
        }
        chunks.removeAll(keepingCapacity: false)
        head = 0
        return .drained
    }

    /// Drops written chunks once they are the larger part, keeping removal amortised O(1).
    private mutating func compact() {
        guard head > 32, head * 2 > chunks.count else { return }
        chunks.removeFirst(head)
        head = 0
    }
}
