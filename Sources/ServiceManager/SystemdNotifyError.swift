/// Why a notification was not delivered. The daemon logs these and carries on: systemd acting on
/// a missing READY=1 or WATCHDOG=1 (a start time-out, a watchdog restart) is the real signal.
public enum SystemdNotifyError: Error, Equatable, Sendable, CustomStringConvertible {
    /// `NOTIFY_SOCKET` holds something this notifier cannot address.
    case invalidSocketAddress(String, reason: String)
    /// socket(2) or sendto(2) failed.
    case systemCallFailed(operation: String, errno: Int32)
    /// The receiver's queue is full; sending again would have blocked the caller.
    case wouldBlock

    public var description: String {
        switch self {
        case let .invalidSocketAddress(value, reason):
            return "NOTIFY_SOCKET '\(value)' is not usable: \(reason); start the daemon from a unit with Type=notify or unset NOTIFY_SOCKET"
        case let .systemCallFailed(operation, code):
            return "sd_notify \(operation) failed: \(SystemError.message(code)) (errno \(code)); check that systemd's notification socket still exists"
        case .wouldBlock:
            return "sd_notify dropped a message: the notification socket's queue is full (systemd is busy); the next one will be tried anew"
        }
    }
}
