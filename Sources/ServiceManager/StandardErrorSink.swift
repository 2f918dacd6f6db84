#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Synchronization

#if canImport(Glibc)
private let systemWrite = Glibc.write
#elseif canImport(Musl)
private let systemWrite = Musl.write
#endif

/// The default output of `JournalFriendlyLogHandler`: each line with its newline in one
/// write(2) to fd 2, unbuffered, so nothing is lost when the process dies.
public enum StandardErrorSink {
    /// One write per line is atomic against other processes sharing the pipe up to PIPE_BUF
    /// (4096) bytes; the lock also keeps our own threads from interleaving longer lines (which
    /// the loop below may write in parts) and lines on the journal's stream socket.
    private static let lock = Mutex(())

    @Sendable public static func write(_ line: String) {
        var text = line
        text.append("\n")
        text.withUTF8 { bytes in
            lock.withLock { _ in
                var offset = 0
                while offset < bytes.count {
                    let written = systemWrite(2, bytes.baseAddress! + offset, bytes.count - offset)
                    if written > 0 {
                        offset += written
                    } else if written < 0 && errno == EINTR {
                        continue
                    } else {
                        // Closed, full (non-blocking) or broken stderr: there is nowhere to say so.
                        return
                    }
                }
            }
        }
    }
}
