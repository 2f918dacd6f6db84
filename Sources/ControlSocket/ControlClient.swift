#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import FoundationEssentials

/// A blocking connection to blesensord's control socket, for the `blesensor` CLI process (not for
/// use on Swift concurrency threads). Every wait for a reply is bounded by `replyTimeout`; only the
/// stream of `watchSensors` waits as long as it takes for the next update.
public final class ControlClient {
    public let path: String
    public let replyTimeout: Duration
    private var fd: Int32
    /// Received bytes not yet returned as a line.
    private var received: [UInt8] = []
    private let clock = ContinuousClock()

    /// A status reply carries every sensor and central; far below this, but a daemon bug must not
    /// make the CLI buffer without end.
    static let maxReplyBytes = 4 * 1024 * 1024

    private init(path: String, fd: Int32, replyTimeout: Duration) {
        self.path = path
        self.fd = fd
        self.replyTimeout = replyTimeout
    }

    /// Connects to the daemon's socket, translating the usual failures into what to do about them.
    public static func connect(path: String = ControlProtocol.defaultSocketPath,
                               replyTimeout: Duration = .seconds(5)) throws(ControlClientError) -> ControlClient {
        guard let address = UnixSocketAddress(path: path) else {
            throw .pathTooLong(path: path, maxBytes: UnixSocketAddress.maxPathBytes)
        }
        let fd = Posix.unixStreamSocket(nonBlocking: false)
        guard fd >= 0 else {
            let code = errno
            throw .systemCallFailed(operation: "create a socket for", path: path, errno: code, message: Posix.message(code))
        }
        // connect() on a Unix socket waits only while the server's backlog is full, bounded by SO_SNDTIMEO.
        var timeout = timeval(replyTimeout)
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        while address.connect(fd) != 0 {
            let code = errno
            if code == EINTR { continue }
            if code == EISCONN { break }  // A connect interrupted by a signal completed meanwhile.
            Posix.close(fd)
            switch code {
            case ENOENT, ENOTDIR: throw .notRunning(path: path)
            case ECONNREFUSED: throw .staleSocket(path: path)
            case EACCES, EPERM: throw .permissionDenied(path: path)
            case EAGAIN, EWOULDBLOCK, ETIMEDOUT:
                throw .timedOut(path: path, waitingFor: "the connection to be accepted", seconds: replyTimeout.seconds)
            default:
                throw .systemCallFailed(operation: "connect to", path: path, errno: code, message: Posix.message(code))
            }
        }
        return ControlClient(path: path, fd: fd, replyTimeout: replyTimeout)
    }

    /// The daemon's current state.
    public func status() throws(ControlClientError) -> StatusSnapshot {
        try write(ControlRequest(.status))
        let reply = try readReply(waitingFor: "the status reply")
        guard let status = reply.status else { throw .malformedReply("the status reply has no \"status\"") }
        return status
    }

    /// The bonded centrals, most recently seen first.
    public func bonds() throws(ControlClientError) -> [BondStatus] {
        try write(ControlRequest(.bonds))
        let reply = try readReply(waitingFor: "the bonds reply")
        guard let bonds = reply.bonds else { throw .malformedReply("the bonds reply has no \"bonds\"") }
        return bonds
    }

    /// Forgets a bond; returns what it was. Unknown or ambiguous addresses are `daemonError`s.
    public func removeBond(_ address: BondAddress) throws(ControlClientError) -> BondStatus {
        try write(ControlRequest(command: ControlCommand.removeBond.rawValue, address: address.address,
                                 addressType: address.kind?.rawValue))
        let reply = try readReply(waitingFor: "the remove-bond reply")
        guard let removed = reply.removedBond else { throw .malformedReply("the remove-bond reply has no \"removedBond\"") }
        return removed
    }

    /// Opens the daemon's pairing window for `seconds` (when its configuration uses one); the pairing state after it.
    public func openPairingWindow(seconds: Int) throws(ControlClientError) -> PairingStatus {
        try write(ControlRequest(command: ControlCommand.openPairingWindow.rawValue, seconds: seconds))
        let reply = try readReply(waitingFor: "the open-pairing-window reply")
        guard let pairing = reply.pairing else { throw .malformedReply("the open-pairing-window reply has no \"pairing\"") }
        return pairing
    }

    /// The pairing state with the passkey (administrators only).
    public func pairing() throws(ControlClientError) -> PairingStatus {
        try write(ControlRequest(.pairing))
        let reply = try readReply(waitingFor: "the pairing reply")
        guard let pairing = reply.pairing else { throw .malformedReply("the pairing reply has no \"pairing\"") }
        return pairing
    }

    /// Streams sensor updates to `body` until it returns false. Throws `disconnected` if the daemon
    /// goes away; the acknowledgement is awaited with the reply timeout, updates without one.
    /// `acknowledged` runs once the daemon has registered the watch (every update published from
    /// then on arrives), e.g. to print "watching, Ctrl-C to stop".
    public func watchSensors(acknowledged: () -> Void = {}, _ body: (SensorStatus) -> Bool) throws(ControlClientError) {
        try watch(.watchSensors, item: "a sensor update", acknowledged: { acknowledged(); return true }, version: \SensorUpdateMessage.version) {
            body($0.sensor)
        }
    }

    /// Streams pairing events to `body` until it returns false (administrators only: the daemon
    /// refuses others with an error reply, thrown here). `acknowledged` runs once every event from
    /// then on will arrive (to open a window on another connection, say); false ends the watch.
    public func watchPairing(acknowledged: () -> Bool = { true }, _ body: (PairingEvent) -> Bool) throws(ControlClientError) {
        try watch(.watchPairing, item: "a pairing event", acknowledged: acknowledged, version: \PairingEventMessage.version) {
            body($0.pairingEvent)
        }
    }

    /// One watch stream: the request, its acknowledgement, then one `Message` per line until
    /// `body` returns false. A line that is not a `Message` is an error reply (thrown as such) or
    /// a malformed one.
    private func watch<Message: Decodable>(_ command: ControlCommand, item: String, acknowledged: () -> Bool,
                                           version: KeyPath<Message, Int>, _ body: (Message) -> Bool) throws(ControlClientError) {
        try write(ControlRequest(command))
        _ = try readReply(waitingFor: "the \(command.rawValue) acknowledgement")
        guard acknowledged() else { return }
        while true {
            let line = try readLine(deadline: nil, waitingFor: item)
            let message: Message
            do {
                message = try ControlCodec.decoder().decode(Message.self, from: Data(line))
            } catch {
                _ = try decodeReply(line)
                throw .malformedReply("expected \(item): \(Self.describe(error))")
            }
            guard message[keyPath: version] <= ControlProtocol.version else { throw .unsupportedVersion(daemon: message[keyPath: version]) }
            if !body(message) { return }
        }
    }

    public func close() {
        guard fd >= 0 else { return }
        Posix.close(fd)
        fd = -1
    }

    deinit { close() }

    // MARK: - Lines

    private func write(_ request: ControlRequest) throws(ControlClientError) {
        guard fd >= 0 else { throw .disconnected(path: path) }
        let line: [UInt8]
        do { line = try ControlCodec.line(request) } catch { throw .malformedReply("cannot encode the request: \(error)") }
        var offset = 0
        while offset < line.count {
            let sent = line.withUnsafeBytes { bytes in
                send(fd, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
            }
            if sent < 0 {
                let code = errno
                switch code {
                case EINTR: continue
                case EPIPE, ECONNRESET: throw .disconnected(path: path)
                case EAGAIN, EWOULDBLOCK:
                    throw .timedOut(path: path, waitingFor: "the request to be taken", seconds: replyTimeout.seconds)
                default:
                    throw .systemCallFailed(operation: "write to", path: path, errno: code, message: Posix.message(code))
                }
            }
            offset += sent
        }
    }

    /// The next reply, checked for version and `ok`.
    private func readReply(waitingFor what: String) throws(ControlClientError) -> ControlReply {
        try decodeReply(try readLine(deadline: clock.now + replyTimeout, waitingFor: what))
    }

    private func decodeReply(_ line: [UInt8]) throws(ControlClientError) -> ControlReply {
        // The version first, so a newer daemon's reply is reported as such and not as garbage.
        struct Envelope: Decodable { var version: Int? }
        let decoder = ControlCodec.decoder()
        if let version = (try? decoder.decode(Envelope.self, from: Data(line)))?.version,
           version > ControlProtocol.version {
            throw .unsupportedVersion(daemon: version)
        }
        let reply: ControlReply
        do {
            reply = try decoder.decode(ControlReply.self, from: Data(line))
        } catch {
            throw .malformedReply(Self.describe(error))
        }
        guard reply.ok else { throw .daemonError(reply.error ?? "no reason given") }
        return reply
    }

    /// One line without its newline; `deadline` nil waits indefinitely.
    private func readLine(deadline: ContinuousClock.Instant?, waitingFor what: String) throws(ControlClientError) -> [UInt8] {
        guard fd >= 0 else { throw .disconnected(path: path) }
        var searched = 0
        while true {
            if let newline = received[searched...].firstIndex(of: UInt8(ascii: "\n")) {
                let line = Array(received[..<newline])
                received.removeFirst(newline + 1)
                return line
            }
            searched = received.count
            guard received.count <= Self.maxReplyBytes else {
                throw .malformedReply("a reply line longer than \(Self.maxReplyBytes) bytes")
            }
            var timeout: Int32 = -1
            if let deadline {
                let remaining = clock.now.duration(to: deadline)
                guard remaining > .zero else { throw .timedOut(path: path, waitingFor: what, seconds: replyTimeout.seconds) }
                timeout = Posix.pollMilliseconds(remaining)
            }
            var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0)]
            let ready = Posix.poll(&fds, timeout: timeout)
            if ready < 0 {
                let code = errno
                throw .systemCallFailed(operation: "wait on", path: path, errno: code, message: Posix.message(code))
            }
            if ready == 0 { continue }  // The deadline check above reports the timeout.
            var chunk = [UInt8](repeating: 0, count: 16 * 1024)
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if count < 0 {
                let code = errno
                switch code {
                case EINTR, EAGAIN, EWOULDBLOCK: continue
                case ECONNRESET, EPIPE: throw .disconnected(path: path)
                default: throw .systemCallFailed(operation: "read from", path: path, errno: code, message: Posix.message(code))
                }
            }
            if count == 0 { throw .disconnected(path: path) }
            received.append(contentsOf: chunk[0..<count])
        }
    }

    private static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted: "not valid JSON"
        case DecodingError.keyNotFound(let key, _): "missing \"\(key.stringValue)\""
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            "unexpected value at \(context.codingPath.map(\.stringValue).joined(separator: "."))"
        default: "\(error)"
        }
    }
}

extension Duration {
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}

extension timeval {
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        // Clamping: time_t is 32 bits on armhf (bookworm), and a huge timeout must not trap.
        self.init(tv_sec: .init(clamping: max(seconds, 0)), tv_usec: .init(clamping: max(attoseconds, 0) / 1_000_000_000_000))
    }
}
