#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Synchronization

/// The daemon's control socket: a Unix stream socket speaking `ControlProtocol`, served by one
/// dedicated thread running a poll() loop, so no request, slow client or flood of updates ever
/// blocks the daemon's other threads or a Swift concurrency thread.
///
/// ```swift
/// let server = ControlServer(handler: myHandler) { event in logger.info("\(event)") }
/// try server.start()
/// server.publish(sensorStatus)   // from any thread
/// server.stop()                  // closes clients, removes the socket file
/// ```
public final class ControlServer: Sendable {
    public let path: String
    public let options: ControlServerOptions
    private let handler: any ControlHandler
    private let onEvent: (@Sendable (ControlServerEvent) -> Void)?
    private let phase = Mutex(Phase.notStarted)

    private enum Phase {
        case notStarted
        case starting
        case running(ServerCore, pthread_t)
        case stopped
    }

    /// `onEvent` reports refusals, drops and failures for logging; it runs on the server thread.
    public init(path: String = ControlProtocol.defaultSocketPath, options: ControlServerOptions = ControlServerOptions(),
                handler: any ControlHandler, onEvent: (@Sendable (ControlServerEvent) -> Void)? = nil) {
        self.path = path
        self.options = options
        self.handler = handler
        self.onEvent = onEvent
    }

    /// Prepares the path (directory, stale socket), binds, sets the mode and starts the server thread.
    /// Returns once clients can connect. Throws `alreadyRunning` if another server answers on the path.
    public func start() throws(ControlServerError) {
        try phase.withLock { (phase: inout Phase) throws(ControlServerError) in
            guard case .notStarted = phase else { throw .alreadyStarted }
            phase = .starting
        }
        let core: ServerCore, thread: pthread_t
        do {
            (core, thread) = try bindAndServe()
        } catch {
            phase.withLock { if case .starting = $0 { $0 = .notStarted } }
            throw error
        }
        // stop() may have run while we were binding: it found nothing to stop, so finish its job here.
        let stoppedMeanwhile = phase.withLock { phase -> Bool in
            guard case .starting = phase else { return true }
            phase = .running(core, thread)
            return false
        }
        if stoppedMeanwhile {
            core.requestStop()
            pthread_join(thread, nil)
        }
    }

    private func bindAndServe() throws(ControlServerError) -> (ServerCore, pthread_t) {
        guard let address = UnixSocketAddress(path: path) else {
            throw .pathTooLong(path: path, maxBytes: UnixSocketAddress.maxPathBytes)
        }
        try SocketPath.ensureParentDirectory(of: path, mode: options.directoryMode)
        try SocketPath.clearStale(path, address: address)

        let fd = Posix.unixStreamSocket(nonBlocking: true)
        guard fd >= 0 else { throw failure("create") }
        var socketFile: SocketFile?
        do throws(ControlServerError) {
            guard address.bind(fd) == 0 else {
                // Another daemon bound the path between our probe and bind.
                if errno == EADDRINUSE { throw .alreadyRunning(path: path) }
                throw failure("bind")
            }
            socketFile = SocketFile(path: path)
            // Before listen(), so nobody can connect while the mode is still the umask's.
            guard chmod(path, options.socketMode) == 0 else { throw failure("set the mode of") }
            guard listen(fd, 32) == 0 else { throw failure("listen on") }
            guard let core = ServerCore() else { throw failure("create the wake-up pipe for") }
            guard let socketFile else { throw failure("inspect") }
            let loop = ServerLoop(listenFD: fd, core: core, handler: handler, options: options,
                                  socketFile: socketFile, onEvent: onEvent)
            guard let thread = ServerThread.start(loop) else {
                core.closeWakePipe()
                throw failure("start the thread for")
            }
            return (core, thread)
        } catch {
            Posix.close(fd)
            socketFile?.removeIfStillOurs()
            throw error
        }
    }

    /// Sends `sensor` to every `watch-sensors` client. Thread-safe and non-blocking: the update is
    /// encoded once here (skipped when nobody watches) and handed to the server thread.
    public func publish(_ sensor: SensorStatus) {
        guard let core = phase.withLock({ phase -> ServerCore? in
            if case .running(let core, _) = phase { return core }
            return nil
        }) else { return }
        guard core.watchers.load(ordering: .sequentiallyConsistent) > 0 else { return }
        guard let line = try? ControlCodec.line(SensorUpdateMessage(sensor: sensor)) else { return }
        core.enqueue(line)
    }

    /// Sends `event` to every `watch-pairing` client (administrators only: it may carry a passkey).
    /// Thread-safe and non-blocking, like `publish(_: SensorStatus)`.
    public func publish(_ event: PairingEvent) {
        guard let core = phase.withLock({ phase -> ServerCore? in
            if case .running(let core, _) = phase { return core }
            return nil
        }) else { return }
        guard let line = try? ControlCodec.line(PairingEventMessage(pairingEvent: event)) else { return }
        core.enqueue(line, for: .pairing)
    }

    /// Whether any client is watching sensors: the daemon may skip building updates nobody receives.
    public var hasWatchers: Bool {
        phase.withLock { phase in
            if case .running(let core, _) = phase { return core.watchers.load(ordering: .relaxed) > 0 }
            return false
        }
    }

    /// Closes every client and the socket, removes the socket file and waits for the server thread.
    /// Idempotent. Called from a handler (on the server thread) it returns at once; the thread then
    /// finishes the same cleanup as it unwinds.
    public func stop() {
        let running = phase.withLock { phase -> (ServerCore, pthread_t)? in
            defer { phase = .stopped }
            if case .running(let core, let thread) = phase { return (core, thread) }
            return nil
        }
        guard let (core, thread) = running else { return }
        core.requestStop()
        if pthread_equal(thread, pthread_self()) != 0 {
            pthread_detach(thread)
        } else {
            pthread_join(thread, nil)
        }
    }

    deinit { stop() }

    private func failure(_ operation: String) -> ControlServerError {
        let code = errno
        return .systemCallFailed(operation: operation, path: path, errno: code, message: Posix.message(code))
    }
}

/// Starts the loop on a plain pthread: it must not be a Swift concurrency thread (it blocks in poll),
/// and Foundation's Thread would pull Foundation into the daemon for this alone.
enum ServerThread {
    /// Hands the loop to the new thread, which alone uses it from then on.
    private final class Handoff: @unchecked Sendable {
        let loop: ServerLoop
        init(_ loop: ServerLoop) { self.loop = loop }
    }

    static func start(_ loop: ServerLoop) -> pthread_t? {
        let handoff = Unmanaged.passRetained(Handoff(loop)).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(&thread, nil, { raw in
            guard let raw else { return nil }
            let loop = Unmanaged<Handoff>.fromOpaque(raw).takeRetainedValue().loop
            loop.run()
            return nil
        }, handoff)
        guard result == 0 else {
            Unmanaged<Handoff>.fromOpaque(handoff).release()
            errno = result
            return nil
        }
        return thread
    }
}
