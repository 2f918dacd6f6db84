#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Thin wrappers over the socket calls both ends use. Glibc's Swift overlay lacks accept4, pipe2
/// and eventfd, so flags are set with fcntl right after creation (the descriptors are created on
/// threads that never fork).
enum Posix {
    /// The C library's text for an errno value ("Connection refused").
    static func message(_ code: Int32) -> String {
        String(cString: strerror(code))
    }

    static func close(_ fd: Int32) {
        #if canImport(Musl)
        _ = Musl.close(fd)
        #else
        _ = Glibc.close(fd)
        #endif
    }

    /// O_NONBLOCK and FD_CLOEXEC on an accepted socket or a pipe end; false with errno set on failure.
    static func makeNonBlockingCloseOnExec(_ fd: Int32) -> Bool {
        let flags = fcntl(fd, F_GETFL)
        guard flags >= 0, fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0 else { return false }
        return fcntl(fd, F_SETFD, FD_CLOEXEC) == 0
    }

    /// A new AF_UNIX stream socket; -1 with errno set on failure.
    static func unixStreamSocket(nonBlocking: Bool) -> Int32 {
        var type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        if nonBlocking { type |= Int32(SOCK_NONBLOCK.rawValue) }
        return socket(AF_UNIX, type, 0)
    }

    /// poll(2), retrying on EINTR. `timeout` in milliseconds, -1 for none.
    static func poll(_ fds: inout [pollfd], timeout: Int32) -> Int32 {
        while true {
            let result = fds.withUnsafeMutableBufferPointer { buffer in
                #if canImport(Musl)
                Musl.poll(buffer.baseAddress, nfds_t(buffer.count), timeout)
                #else
                Glibc.poll(buffer.baseAddress, nfds_t(buffer.count), timeout)
                #endif
            }
            if result >= 0 || errno != EINTR { return result }
        }
    }

    /// Milliseconds for poll(), rounded up so a deadline is never polled for early and spun on.
    static func pollMilliseconds(_ duration: Duration) -> Int32 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0, duration > .zero else { return 0 }
        let milliseconds = seconds.multipliedReportingOverflow(by: 1000)
        guard !milliseconds.overflow else { return Int32.max }
        let total = milliseconds.partialValue + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(clamping: total)
    }
}

/// A `sockaddr_un` for a filesystem path.
struct UnixSocketAddress {
    /// sun_path holds 108 bytes including the terminating NUL.
    static let maxPathBytes = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1

    private var storage = sockaddr_un()

    /// Nil when the path is empty, too long for sun_path or contains a NUL byte.
    init?(path: String) {
        let bytes = Array(path.utf8)
        guard !bytes.isEmpty, bytes.count <= Self.maxPathBytes, !bytes.contains(0) else { return nil }
        storage.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &storage.sun_path) { $0.copyBytes(from: bytes) }
    }

    /// connect(2); 0 or -1 with errno set.
    func connect(_ fd: Int32) -> Int32 {
        withPointer { address, length in
            #if canImport(Musl)
            Musl.connect(fd, address, length)
            #else
            Glibc.connect(fd, address, length)
            #endif
        }
    }

    /// bind(2); 0 or -1 with errno set.
    func bind(_ fd: Int32) -> Int32 {
        withPointer { address, length in
            #if canImport(Musl)
            Musl.bind(fd, address, length)
            #else
            Glibc.bind(fd, address, length)
            #endif
        }
    }

    private func withPointer<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        var address = storage
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                body($0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
    }
}
