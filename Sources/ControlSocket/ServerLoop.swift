#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Synchronization

/// The poll() loop behind `ControlServer`, confined to the server's own thread: it alone touches
/// the listening socket and the connections, so none of them needs a lock.
final class ServerLoop {
    private let listenFD: Int32
    private let core: ServerCore
    private let handler: any ControlHandler
    private let options: ControlServerOptions
    private let onEvent: (@Sendable (ControlServerEvent) -> Void)?
    /// Unlinked on exit if the path still names our socket (a successor may have replaced it).
    private let socketFile: SocketFile

    private let clock = ContinuousClock()
    private var connections: [Connection] = []
    private var readBuffer = [UInt8](repeating: 0, count: 4096)
    /// Set after accept() failed for lack of descriptors or memory, so the ready listener is not spun on.
    private var acceptResumesAt: ContinuousClock.Instant?
    /// Names each deferred request, so a reply finds its connection and a late one finds none
    /// (descriptors are reused; tokens are not).
    private var nextReplyToken: UInt64 = 1

    // Replies that never change, encoded once.
    private let watchAck: [UInt8]
    private let tooManyClients: [UInt8]
    private let tooLong: [UInt8]

    init(listenFD: Int32, core: ServerCore, handler: any ControlHandler, options: ControlServerOptions,
         socketFile: SocketFile, onEvent: (@Sendable (ControlServerEvent) -> Void)?) {
        self.listenFD = listenFD
        self.core = core
        self.handler = handler
        self.options = options
        self.socketFile = socketFile
        self.onEvent = onEvent
        watchAck = (try? ControlCodec.line(ControlReply(ok: true))) ?? Array("{\"ok\":true,\"version\":1}\n".utf8)
        tooManyClients = ControlCodec.errorLine(
            "too many control clients (blesensord serves at most \(options.maxClients) at once); try again later")
        tooLong = ControlCodec.errorLine("request too long (max \(options.maxRequestBytes) bytes)")
    }

    func run() {
        defer { shutDown() }
        var fds: [pollfd] = []
        while true {
            let now = clock.now
            if let resume = acceptResumesAt, now >= resume { acceptResumesAt = nil }
            fds.removeAll(keepingCapacity: true)
            fds.append(pollfd(fd: core.wakeReadFD, events: Int16(POLLIN), revents: 0))
            // A negative descriptor is ignored by poll(): that is how accepting pauses.
            fds.append(pollfd(fd: acceptResumesAt == nil ? listenFD : -1, events: Int16(POLLIN), revents: 0))
            let polled = connections.count
            for connection in connections {
                var events: Int32 = 0
                if !connection.inputClosed, !connection.isAwaitingReply { events |= Int32(POLLIN) }
                if !connection.output.isEmpty { events |= Int32(POLLOUT) }
                fds.append(pollfd(fd: connection.fd, events: Int16(events), revents: 0))
            }

            if Posix.poll(&fds, timeout: pollTimeout(now: now)) < 0 {
                let code = errno
                report(.loopFailed(errno: code, message: Posix.message(code)))
                return
            }

            if fds[0].revents != 0 {
                guard let work = core.takeWork() else { return }
                for update in work.updates { broadcast(update.line, to: update.topic) }
                for reply in work.replies { deliver(reply.line, token: reply.token) }
            }
            if fds[1].revents != 0 { acceptPending() }
            // Skipping connections closed above matters: accept() may already have reused their descriptor.
            for index in 0..<polled where fds[index + 2].revents != 0 && !connections[index].isClosed {
                service(connections[index], revents: Int32(fds[index + 2].revents))
            }
            expireIdle(now: clock.now)
            connections.removeAll { $0.isClosed }
        }
    }

    // MARK: - Accepting

    private func acceptPending() {
        while true {
            let fd = accept(listenFD, nil, nil)
            if fd < 0 {
                let code = errno
                switch code {
                case EAGAIN, EWOULDBLOCK:
                    return
                case EINTR, ECONNABORTED:
                    continue
                default:
                    // EMFILE, ENFILE, ENOBUFS...: the listener stays readable, so pause instead of spinning.
                    report(.acceptFailed(errno: code, message: Posix.message(code)))
                    acceptResumesAt = clock.now + .milliseconds(100)
                    return
                }
            }
            guard Posix.makeNonBlockingCloseOnExec(fd) else {
                Posix.close(fd)
                continue
            }
            if connections.count(where: { !$0.isClosed }) >= options.maxClients {
                // Reported first, like every event, so it is on record before the client can see the effect.
                report(.clientRefused(maxClients: options.maxClients))
                // A fresh socket's buffer is empty, so this short line goes out without blocking.
                _ = tooManyClients.withUnsafeBytes {
                    send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
                }
                Posix.close(fd)
                continue
            }
            let administrator = options.administrators.admit(Caller.peer(of: fd))
            connections.append(Connection(fd: fd, isAdministrator: administrator, deadline: clock.now + options.idleTimeout))
        }
    }

    // MARK: - Serving one connection

    private func service(_ connection: Connection, revents: Int32) {
        if revents & Int32(POLLNVAL | POLLERR) != 0 {
            close(connection)
            return
        }
        if revents & Int32(POLLOUT) != 0 {
            flush(connection)
            guard !connection.isClosed else { return }
        }
        if revents & Int32(POLLIN) != 0 {
            readAvailable(connection)
        } else if revents & Int32(POLLHUP) != 0 {
            // Both directions are gone: nothing more can be read or delivered.
            close(connection)
        }
    }

    private func readAvailable(_ connection: Connection) {
        let count = readBuffer.withUnsafeMutableBytes {
            recv(connection.fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT))
        }
        if count < 0 {
            let code = errno
            if code != EAGAIN, code != EWOULDBLOCK, code != EINTR { close(connection) }
            return
        }
        if count == 0 {
            peerFinishedSending(connection)
            return
        }
        switch connection.phase {
        case .awaitingRequest:
            connection.deadline = clock.now + options.idleTimeout
            connection.input.append(contentsOf: readBuffer[0..<count])
            processInput(connection)
        case .awaitingReply:
            // Not polled for input meanwhile; kept for after the reply should it come anyway.
            connection.input.append(contentsOf: readBuffer[0..<count])
        case .watching, .closing:
            break  // Read only to notice the disconnect (and so close() leaves no unread data behind).
        }
    }

    /// Answers every complete line; an unterminated line longer than the limit is refused at once
    /// rather than buffered until its newline arrives.
    private func processInput(_ connection: Connection) {
        var start = 0
        while connection.phase == .awaitingRequest, !connection.isClosed,
              let newline = connection.input[start...].firstIndex(of: UInt8(ascii: "\n")) {
            var end = newline
            if end > start, connection.input[end - 1] == UInt8(ascii: "\r") { end -= 1 }
            let line = connection.input[start..<end]
            start = newline + 1
            if line.count > options.maxRequestBytes {
                refuseTooLong(connection)
                return
            }
            handle(line, on: connection)
        }
        if connection.isAwaitingReply {
            // The lines after the deferred request are answered once its reply is out.
            connection.input.removeFirst(start)
            return
        }
        guard connection.phase == .awaitingRequest, !connection.isClosed else {
            connection.input = []
            return
        }
        connection.input.removeFirst(start)
        if Self.unterminatedTooLong(connection.input, max: options.maxRequestBytes) { refuseTooLong(connection) }
    }

    /// Whether a line still waiting for its newline is already over the limit. A CR at the end may
    /// be the first half of a CRLF, which the line will not keep: counting it refused a longest
    /// request whose CR and LF arrived in separate reads (found by the fuzz target's helper).
    static func unterminatedTooLong(_ input: [UInt8], max: Int) -> Bool {
        let pending = input.last == UInt8(ascii: "\r") ? input.count - 1 : input.count
        return pending > max
    }

    private func handle(_ line: ArraySlice<UInt8>, on connection: Connection) {
        // Blank lines (a stray Enter in `socat -`) are not requests.
        if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return }
        let parsed = ControlCodec.parseRequest(line)
        if case let .success(request) = parsed, let action = request.administration, !connection.isAdministrator {
            let message = "\(action) needs root (or the daemon's admin group, security.admin-group): run it with sudo"
            report(.requestRejected(message))
            enqueue(ControlCodec.errorLine(message), to: connection)
            return
        }
        switch parsed {
        case .failure(let rejection):
            report(.requestRejected(rejection.message))
            enqueue(ControlCodec.errorLine(rejection.message), to: connection)
        case .success(.status):
            enqueue(encode(.status) { ControlReply(ok: true, status: handler.status()) }, to: connection)
        case .success(.bonds):
            enqueue(answer(.bonds, handler.bonds()) { ControlReply(ok: true, bonds: $0) }, to: connection)
        case .success(.openPairingWindow(let seconds)):
            enqueue(answer(.openPairingWindow, handler.openPairingWindow(seconds: seconds)) { ControlReply(ok: true, pairing: $0) },
                    to: connection)
        case .success(.pairing):
            enqueue(answer(.pairing, handler.pairing()) { ControlReply(ok: true, pairing: $0) }, to: connection)
        case .success(.removeBond(let address)):
            handler.removeBond(address, reply: deferReply(.removeBond, on: connection) { ControlReply(ok: true, removedBond: $0) })
        case .success(.watchSensors):
            connection.phase = .watching(.sensors)
            connection.deadline = nil
            connection.input = []
            // Counted before the ack goes out: an update published after the client sees the ack reaches it.
            core.watchers.add(1, ordering: .sequentiallyConsistent)
            enqueue(watchAck, to: connection)
        case .success(.watchPairing):
            // Rare events: always encoded, so no count is needed; one published after the ack arrives.
            connection.phase = .watching(.pairing)
            connection.deadline = nil
            connection.input = []
            enqueue(watchAck, to: connection)
        }
    }

    private func encode(_ command: ControlCommand, _ reply: () -> ControlReply) -> [UInt8] {
        do { return try ControlCodec.line(reply()) } catch {
            return ControlCodec.errorLine("blesensord could not encode its \(command.rawValue) reply: \(error)")
        }
    }

    private func answer<Value>(_ command: ControlCommand, _ result: Result<Value, ControlFailure>,
                               _ reply: (Value) -> ControlReply) -> [UInt8] {
        switch result {
        case .success(let value): return encode(command) { reply(value) }
        case .failure(let failure): return ControlCodec.errorLine(failure.message)
        }
    }

    // MARK: - Deferred replies

    /// Parks the connection until the returned reply is completed (on any thread) or `replyTimeout` passes.
    private func deferReply<Value>(_ command: ControlCommand, on connection: Connection,
                                   _ reply: @escaping @Sendable (Value) -> ControlReply) -> DeferredReply<Value> {
        let token = nextReplyToken
        nextReplyToken += 1
        connection.phase = .awaitingReply(token: token, command: command)
        connection.deadline = clock.now + options.replyTimeout
        return DeferredReply(command: command, makeReply: reply) { [core] line in core.deliverReply(line, token: token) }
    }

    /// Writes a completed reply and resumes the connection: the requests that came meanwhile, and
    /// the close the client asked for by shutting down its side.
    private func deliver(_ line: [UInt8], token: UInt64) {
        // Its client left or gave up (timed out) meanwhile: nobody to tell.
        guard let connection = connections.first(where: { !$0.isClosed && $0.replyToken == token }) else { return }
        connection.phase = .awaitingRequest
        connection.deadline = clock.now + options.idleTimeout
        enqueue(line, to: connection)
        guard !connection.isClosed else { return }
        processInput(connection)
        if connection.inputClosed { closeAfterLastRequest(connection) }
    }

    private func refuseTooLong(_ connection: Connection) {
        report(.requestRejected("request too long (max \(options.maxRequestBytes) bytes)"))
        connection.input = []
        enqueue(tooLong, to: connection)
        beginClosing(connection)
    }

    private func peerFinishedSending(_ connection: Connection) {
        connection.inputClosed = true
        // A last request without a newline (`printf '...' | socat`) still gets its answer.
        if connection.phase == .awaitingRequest, !connection.input.isEmpty {
            connection.input.append(UInt8(ascii: "\n"))
            processInput(connection)
        }
        closeAfterLastRequest(connection)
    }

    /// The peer sends nothing more: close once the replies are out (a watch ends with its client's
    /// input). With a deferred reply still to come, `deliver` calls this again once it is written.
    private func closeAfterLastRequest(_ connection: Connection) {
        guard !connection.isClosed, !connection.isAwaitingReply else { return }
        if connection.isWatching || connection.output.isEmpty {
            close(connection)
        } else {
            beginClosing(connection)
        }
    }

    private func beginClosing(_ connection: Connection) {
        guard !connection.isClosed else { return }
        if connection.isWatchingSensors { core.watchers.subtract(1, ordering: .sequentiallyConsistent) }
        connection.phase = .closing
        connection.deadline = clock.now + options.idleTimeout
        if connection.output.isEmpty { close(connection) }
    }

    // MARK: - Output

    private func broadcast(_ update: [UInt8], to topic: WatchTopic) {
        for connection in connections where connection.phase == .watching(topic) && !connection.isClosed {
            enqueue(update, to: connection)
        }
    }

    /// Queues a line and writes at once (most replies leave in this call, without another poll round).
    private func enqueue(_ line: [UInt8], to connection: Connection) {
        guard !connection.isClosed else { return }
        let queued = connection.output.byteCount
        if queued > 0, queued + line.count > options.maxOutputBytes {
            if connection.isWatching { report(.slowWatcherDropped(queuedBytes: queued)) }
            close(connection)
            return
        }
        connection.output.append(line)
        flush(connection)
    }

    private func flush(_ connection: Connection) {
        switch connection.output.write(to: connection.fd) {
        case .drained:
            if connection.phase == .closing { close(connection) }
        case .blocked:
            if connection.phase == .closing { connection.deadline = clock.now + options.idleTimeout }
        case .failed:
            close(connection)
        }
    }

    // MARK: - Closing

    private func expireIdle(now: ContinuousClock.Instant) {
        for connection in connections where !connection.isClosed {
            guard let deadline = connection.deadline, now >= deadline else { continue }
            if case .awaitingReply(_, let command) = connection.phase {
                report(.replyTimedOut(command: command.rawValue))
                let limit = NumberText.seconds(options.replyTimeout.seconds)
                enqueue(ControlCodec.errorLine(
                    "blesensord did not finish \(command.rawValue) within \(limit); it may still complete: check again in a moment"),
                        to: connection)
                beginClosing(connection)
                continue
            }
            if connection.phase == .awaitingRequest { report(.idleClientClosed) }
            close(connection)
        }
    }

    private func close(_ connection: Connection) {
        guard !connection.isClosed else { return }
        if connection.isWatchingSensors { core.watchers.subtract(1, ordering: .sequentiallyConsistent) }
        connection.isClosed = true
        connection.output = OutputQueue()
        connection.input = []
        Posix.close(connection.fd)
    }

    private func pollTimeout(now: ContinuousClock.Instant) -> Int32 {
        var earliest = acceptResumesAt
        for connection in connections {
            guard let deadline = connection.deadline else { continue }
            if earliest.map({ deadline < $0 }) ?? true { earliest = deadline }
        }
        guard let earliest else { return -1 }
        return Posix.pollMilliseconds(now.duration(to: earliest))
    }

    private func report(_ event: ControlServerEvent) {
        onEvent?(event)
    }

    private func shutDown() {
        for connection in connections { close(connection) }
        connections = []
        Posix.close(listenFD)
        socketFile.removeIfStillOurs()
        core.closeWakePipe()
    }
}
