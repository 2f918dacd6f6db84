/// One assignment of the sd_notify protocol (sd_notify(3)); a datagram carries one or more,
/// newline-separated.
public enum ServiceNotification: Sendable, Equatable {
    /// Start-up finished: with `Type=notify` systemd holds back units ordered after us until this.
    case ready
    /// Shutdown began, so a slow stop is not mistaken for a hang.
    case stopping
    /// Keep-alive for `WatchdogSec=`.
    case watchdog
    /// Free-form line shown by `systemctl status`.
    case status(String)
    /// The errno of a failure, shown by `systemctl status` beside `status`.
    case errno(Int32)

    /// `KEY=value`. A newline inside a status would start a new assignment that the sender did
    /// not mean (it could forge `READY=1`), so newlines and other control characters become spaces.
    public var assignment: String {
        switch self {
        case .ready: return "READY=1"
        case .stopping: return "STOPPING=1"
        case .watchdog: return "WATCHDOG=1"
        case let .status(text): return "STATUS=" + Self.singleLine(text)
        case let .errno(code): return "ERRNO=\(code)"
        }
    }

    static func singleLine(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { scalar in
            scalar.value < 0x20 || scalar.value == 0x7F ? " " : scalar
        }))
    }
}
