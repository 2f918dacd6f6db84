#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// sd_notify(3) without libsystemd: one AF_UNIX datagram per call to the socket named by
/// `NOTIFY_SOCKET`. Does nothing when that variable is absent (started by hand, not by systemd).
///
/// Never blocks: the socket is non-blocking, so a full receive queue is reported as
/// `SystemdNotifyError.wouldBlock` instead of stalling the actor that called. A fresh socket per
/// call, as libsystemd does, keeps the notifier a plain value with no descriptor to close; the
/// daemon sends a handful of messages plus one watchdog ping every few seconds.
public struct SystemdNotifier: Sendable {
    let address: NotifySocketAddress?

    /// Reads `NOTIFY_SOCKET` from `environment`; throws when it is set to something unusable
    /// (so a mistyped drop-in is reported at start rather than as a start time-out).
    public init(environment: [String: String]) throws(SystemdNotifyError) {
        guard let value = environment["NOTIFY_SOCKET"] else {
            address = nil
            return
        }
        address = try NotifySocketAddress(parsing: value)
    }

    /// True when running under a service manager that listens.
    public var isEnabled: Bool { address != nil }

    /// Sends the notifications as one datagram (one message, so systemd applies them together).
    public func send(_ notifications: ServiceNotification...) throws(SystemdNotifyError) {
        try send(notifications)
    }

    /// Sends the notifications as one datagram; does nothing when disabled or given none.
    public func send(_ notifications: [ServiceNotification]) throws(SystemdNotifyError) {
        guard let address, !notifications.isEmpty else { return }
        var message = notifications.map(\.assignment).joined(separator: "\n")
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue | SOCK_CLOEXEC.rawValue | SOCK_NONBLOCK.rawValue), 0)
        guard descriptor >= 0 else { throw .systemCallFailed(operation: "socket", errno: errno) }
        defer { close(descriptor) }
        let failure: Int32? = message.withUTF8 { bytes in
            address.withSocketAddress { socketAddress, length in
                while true {
                    // MSG_NOSIGNAL: a vanished receiver must not raise SIGPIPE in the daemon.
                    let sent = sendto(descriptor, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL), socketAddress, length)
                    if sent >= 0 { return nil }
                    let code = errno
                    if code != EINTR { return code }
                }
            }
        }
        guard let failure else { return }
        if failure == EAGAIN || failure == EWOULDBLOCK { throw .wouldBlock }
        throw .systemCallFailed(operation: "sendto", errno: failure)
    }
}
