/// Why the control server could not start. Each message names the path and what to do.
public enum ControlServerError: Error, Equatable, CustomStringConvertible {
    /// Something accepted a connection on the socket path.
    case alreadyRunning(path: String)
    /// The path exists but is a regular file, directory, ...: never removed automatically.
    case notASocket(path: String)
    case pathTooLong(path: String, maxBytes: Int)
    case directoryFailed(path: String, errno: Int32, message: String)
    case systemCallFailed(operation: String, path: String, errno: Int32, message: String)
    /// `start()` may be called once per server.
    case alreadyStarted

    public var description: String {
        switch self {
        case .alreadyRunning(let path):
            "another blesensord is running (control socket \(path) answers)"
        case .notASocket(let path):
            "\(path) exists and is not a socket; remove it or configure another control socket path"
        case .pathTooLong(let path, let maxBytes):
            "control socket path \(path) is longer than \(maxBytes) bytes; choose a shorter one"
        case .directoryFailed(let path, _, let message):
            "cannot create control socket directory \(path): \(message) (run as root, or let systemd create it with RuntimeDirectory=blesensor)"
        case .systemCallFailed(let operation, let path, _, let message):
            "cannot \(operation) control socket \(path): \(message)"
        case .alreadyStarted:
            "the control server was already started; create a new ControlServer to listen again"
        }
    }
}

/// Things the server did on its own that the daemon may want to log. Delivered on the server
/// thread: the callback must be quick.
public enum ControlServerEvent: Sendable, Equatable, CustomStringConvertible {
    /// A client beyond `maxClients` was accepted, told so, and closed.
    case clientRefused(maxClients: Int)
    /// A request was answered with an error (malformed, unknown command, version, too long).
    case requestRejected(String)
    /// A client that sent nothing for `idleTimeout` was closed.
    case idleClientClosed
    /// A deferred reply did not come within `replyTimeout`; the client was told and closed.
    case replyTimedOut(command: String)
    /// A watch client stopped reading and its queued output passed `maxOutputBytes`.
    case slowWatcherDropped(queuedBytes: Int)
    /// accept() failed for a reason other than "nothing pending"; accepting pauses briefly.
    case acceptFailed(errno: Int32, message: String)
    /// poll() itself failed: the server stopped serving.
    case loopFailed(errno: Int32, message: String)

    public var description: String {
        switch self {
        case .clientRefused(let maxClients): "control client refused: already serving \(maxClients)"
        case .requestRejected(let message): "control request rejected: \(message)"
        case .idleClientClosed: "idle control client closed"
        case .replyTimedOut(let command): "control request \(command) not answered in time; the client was told and closed"
        case .slowWatcherDropped(let bytes): "control watch client dropped: it stopped reading (\(bytes) bytes queued)"
        case .acceptFailed(_, let message): "control socket accept failed: \(message)"
        case .loopFailed(_, let message): "control socket loop stopped: \(message)"
        }
    }
}
