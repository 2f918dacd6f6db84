/// Why `blesensor` could not talk to blesensord, worded for the person at the terminal.
public enum ControlClientError: Error, Equatable, CustomStringConvertible {
    /// No socket file at the path (ENOENT).
    case notRunning(path: String)
    /// A socket file nobody listens on (ECONNREFUSED): the daemon died without removing it.
    case staleSocket(path: String)
    /// EACCES/EPERM on the socket or its directory.
    case permissionDenied(path: String)
    case pathTooLong(path: String, maxBytes: Int)
    /// No (complete) answer within the reply timeout; `waitingFor` says for what.
    case timedOut(path: String, waitingFor: String, seconds: Double)
    /// The daemon closed the connection.
    case disconnected(path: String)
    /// A line that is not a reply this client understands.
    case malformedReply(String)
    /// The daemon answered `ok: false`.
    case daemonError(String)
    /// The daemon speaks a newer protocol major version.
    case unsupportedVersion(daemon: Int)
    case systemCallFailed(operation: String, path: String, errno: Int32, message: String)

    public var description: String {
        switch self {
        case .notRunning(let path):
            "blesensord is not running (no control socket at \(path)); start it with `systemctl start blesensord`"
        case .staleSocket(let path):
            "blesensord is not running (stale socket at \(path))"
        case .permissionDenied(let path):
            "permission denied on \(path): run as root or add your user to the blesensor group"
        case .pathTooLong(let path, let maxBytes):
            "control socket path \(path) is longer than \(maxBytes) bytes"
        case .timedOut(let path, let waitingFor, let seconds):
            "blesensord did not answer on \(path) within \(NumberText.seconds(seconds)) (waiting for \(waitingFor)); it may be hung: check `journalctl -u blesensord`"
        case .disconnected(let path):
            "blesensord closed the control connection on \(path) (it stopped or restarted, or dropped this client for reading too slowly)"
        case .malformedReply(let detail):
            "blesensord sent a reply this blesensor cannot read (\(detail)); are blesensor and blesensord the same version?"
        case .daemonError(let message):
            "blesensord refused the request: \(message)"
        case .unsupportedVersion(let daemon):
            "blesensord speaks control protocol version \(daemon) but this blesensor speaks \(ControlProtocol.version); install matching versions"
        case .systemCallFailed(let operation, let path, _, let message):
            "cannot \(operation) control socket \(path): \(message)"
        }
    }
}
