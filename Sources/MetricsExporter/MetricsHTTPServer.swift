#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import BLECore
import Synchronization

/// Why the endpoint could not listen, in words for the person who configured it.
public enum MetricsServerError: Error, Equatable, Sendable, CustomStringConvertible {
    case addressInUse(String)
    case cannotListen(String, errno: Int32)

    public var description: String {
        switch self {
        case let .addressInUse(address):
            return "\(address) is already in use by another program; choose another port under metrics: listen"
        case let .cannotListen(address, code):
            return "cannot listen on \(address): \(String(cString: strerror(code))); check metrics: listen"
        }
    }
}

/// What the server sends back for one request.
public struct HTTPResponse: Sendable, Equatable {
    public var status: Int
    public var reason: String
    public var contentType: String
    public var body: [UInt8]
    public var extraHeaders: [(String, String)] = []

    public init(status: Int, reason: String, contentType: String = "text/plain; charset=utf-8", body: [UInt8], extraHeaders: [(String, String)] = []) {
        self.status = status
        self.reason = reason
        self.contentType = contentType
        self.body = body
        self.extraHeaders = extraHeaders
    }

    public static func == (lhs: HTTPResponse, rhs: HTTPResponse) -> Bool {
        lhs.status == rhs.status && lhs.contentType == rhs.contentType && lhs.body == rhs.body
            && lhs.extraHeaders.elementsEqual(rhs.extraHeaders) { $0 == $1 }
    }

    /// Status line, headers and (unless `headOnly`) the body; every response closes the connection.
    func bytes(headOnly: Bool) -> [UInt8] {
        var head = "HTTP/1.1 \(status) \(reason)\r\nContent-Type: \(contentType)\r\nContent-Length: \(body.count)\r\nConnection: close\r\n"
        for (name, value) in extraHeaders { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        return Array(head.utf8) + (headOnly ? [] : body)
    }
}

/// A GET-only HTTP/1.1 responder on its own thread: one poll() loop over the listening socket,
/// the connections and a wake-up pipe. Each connection gets one response and is closed; a client
/// that sends nothing useful within `requestTimeout` is dropped, and at most `maxConnections` are
/// open at once: a newcomer beyond them closes the oldest connection still waiting for its
/// request, so idle sockets held open by someone cannot lock a scraper out.
public final class MetricsHTTPServer: Sendable {
    public static let maxConnections = 16

    public let address: String
    /// How long a client may take to send its request and read the response.
    public let requestTimeout: Duration
    private let listenFD: Int32
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let respond: @Sendable (HTTPRequestHead) -> HTTPResponse
    private let state = Mutex(State())
    private let clock: any HostClock

    private struct State {
        var started = false
        var stopping = false
        /// The descriptors are closed: a late stop() must not write to a number the process may
        /// already have reused.
        var closed = false
        var served: Int64 = 0
    }

    /// Binds and listens at once (so a port in use is reported at start), serves after `start()`.
    public init(host: String, port: UInt16, requestTimeout: Duration = .seconds(10), clock: any HostClock = SystemClock.shared,
                respond: @escaping @Sendable (HTTPRequestHead) -> HTTPResponse) throws(MetricsServerError) {
        let display = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        let fd = try Self.listen(host: host, port: port, display: display)
        var pipeFDs: [Int32] = [-1, -1]
        guard pipe(&pipeFDs) == 0, pipeFDs.allSatisfy(Self.makeNonBlockingCloseOnExec) else {
            pipeFDs.filter { $0 >= 0 }.forEach { close($0) }
            let code = errno
            close(fd)
            throw .cannotListen(display, errno: code)
        }
        self.listenFD = fd
        self.wakeRead = pipeFDs[0]
        self.wakeWrite = pipeFDs[1]
        self.respond = respond
        self.requestTimeout = requestTimeout
        self.clock = clock
        self.address = Self.boundAddress(fd, host: host) ?? display
    }

    /// Requests answered so far.
    public var served: Int64 { state.withLock { $0.served } }

    public func start() {
        let first = state.withLock { state in
            defer { state.started = true }
            return !state.started && !state.stopping
        }
        guard first else { return }
        NamedThread.start("blesensor-http") { [self] in
            run()
            state.withLock { state in
                state.closed = true
                closeDescriptors()
            }
        }
    }

    /// Stops the loop, which closes every descriptor on its way out (here, if it never started).
    /// The wake-up write is non-blocking, so it may sit under the lock that orders it before the close.
    public func stop() {
        state.withLock { state in
            guard !state.stopping, !state.closed else { return }
            state.stopping = true
            if state.started {
                var byte: UInt8 = 1
                _ = write(wakeWrite, &byte, 1)
            } else {
                state.closed = true
                closeDescriptors()
            }
        }
    }

    private func closeDescriptors() {
        close(listenFD)
        close(wakeRead)
        close(wakeWrite)
    }

    private static func listen(host: String, port: UInt16, display: String) throws(MetricsServerError) -> Int32 {
        let family = host.contains(":") ? AF_INET6 : AF_INET
        let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw .cannotListen(display, errno: errno) }
        var on: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        var result: Int32
        if family == AF_INET6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port.bigEndian
            guard inet_pton(AF_INET6, host, &address.sin6_addr) == 1 else {
                close(fd)
                throw .cannotListen(display, errno: EINVAL)
            }
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
                close(fd)
                throw .cannotListen(display, errno: EINVAL)
            }
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        }
        if result == 0 { result = Glibc.listen(fd, 32) }
        guard result == 0 else {
            let code = errno
            close(fd)
            throw code == EADDRINUSE ? .addressInUse(display) : .cannotListen(display, errno: code)
        }
        return fd
    }

    /// accept4 and pipe2 are not in the Glibc module (they need _GNU_SOURCE): the flags follow.
    private static func makeNonBlockingCloseOnExec(_ fd: Int32) -> Bool {
        let flags = fcntl(fd, F_GETFL)
        guard flags >= 0, fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0 else { return false }
        return fcntl(fd, F_SETFD, FD_CLOEXEC) == 0
    }

    /// The address actually bound (port 0 in tests picks a free one).
    private static func boundAddress(_ fd: Int32, host: String) -> String? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let ok = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard ok == 0 else { return nil }
        let family = Int32(storage.ss_family)
        let port: UInt16 = withUnsafePointer(to: &storage) { pointer in
            if family == AF_INET6 {
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin6_port) }
            }
            return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
        }
        return host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    private final class Connection {
        let fd: Int32
        let deadline: MonotonicInstant
        var input: [UInt8] = []
        var output: [UInt8] = []
        var written = 0
        var responded = false

        init(fd: Int32, deadline: MonotonicInstant) {
            self.fd = fd
            self.deadline = deadline
        }
    }

    private func run() {
        var connections: [Connection] = []
        /// Set after accept() ran out of descriptors or memory: the still-readable listener is left
        /// out of poll() until then, rather than spun on.
        var acceptResumesAt: MonotonicInstant?
        var buffer = [UInt8](repeating: 0, count: 4096)
        var fds: [pollfd] = []
        defer { connections.forEach { close($0.fd) } }
        while !state.withLock({ $0.stopping }) {
            let now = clock.now
            if let resume = acceptResumesAt, now >= resume { acceptResumesAt = nil }
            connections.removeAll { connection in
                guard now >= connection.deadline else { return false }
                close(connection.fd)
                return true
            }
            fds.removeAll(keepingCapacity: true)
            fds.append(pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0))
            fds.append(pollfd(fd: acceptResumesAt == nil ? listenFD : -1, events: Int16(POLLIN), revents: 0))
            for connection in connections {
                fds.append(pollfd(fd: connection.fd, events: Int16(connection.responded ? POLLOUT : POLLIN), revents: 0))
            }
            // Wake in time for the earliest deadline; the clock is monotonic.
            let nearest = (connections.map(\.deadline) + [acceptResumesAt].compactMap { $0 }).min()
            let timeout = nearest.map { Int32(clamping: max(0, ($0 - now).wholeMilliseconds + 1)) } ?? -1
            let ready = poll(&fds, nfds_t(fds.count), timeout)
            if ready < 0 {
                if errno == EINTR { continue }
                return
            }
            if fds[0].revents != 0 { return }
            var closed = Set<Int32>()
            for (index, connection) in connections.enumerated() {
                let revents = Int32(fds[index + 2].revents)
                guard revents != 0 else { continue }
                if !connection.responded {
                    let count = read(connection.fd, &buffer, buffer.count)
                    if count < 0, errno == EAGAIN || errno == EINTR { continue }
                    guard count > 0 else {
                        closed.insert(connection.fd)
                        continue
                    }
                    connection.input += buffer[..<count]
                    if let response = answer(connection.input) {
                        connection.output = response
                        connection.responded = true
                    }
                }
                if connection.responded, !flush(connection) { closed.insert(connection.fd) }
            }
            if !closed.isEmpty {
                connections.removeAll { connection in
                    guard closed.contains(connection.fd) else { return false }
                    close(connection.fd)
                    return true
                }
            }
            if fds[1].revents != 0, !accept(into: &connections) { acceptResumesAt = clock.now + .milliseconds(100) }
        }
    }

    /// The bytes of the response once the head is complete, or nil while it is not.
    private func answer(_ input: [UInt8]) -> [UInt8]? {
        switch HTTPRequestHead.parse(input) {
        case .incomplete:
            return nil
        case .tooLarge:
            return HTTPResponse(status: 431, reason: "Request Header Fields Too Large", body: Array("request head too large\n".utf8)).bytes(headOnly: false)
        case let .malformed(reason):
            return HTTPResponse(status: 400, reason: "Bad Request", body: Array("\(reason)\n".utf8)).bytes(headOnly: false)
        case let .complete(head):
            guard head.method == "GET" || head.method == "HEAD" else {
                return HTTPResponse(status: 405, reason: "Method Not Allowed", body: Array("only GET and HEAD\n".utf8),
                                    extraHeaders: [("Allow", "GET, HEAD")]).bytes(headOnly: false)
            }
            let response = respond(head)
            state.withLock { $0.served += 1 }
            return response.bytes(headOnly: head.method == "HEAD")
        }
    }

    /// Writes what the socket takes; false when the connection is finished (all sent, or broken).
    private func flush(_ connection: Connection) -> Bool {
        while connection.written < connection.output.count {
            let count = connection.output.withUnsafeBytes { bytes in
                send(connection.fd, bytes.baseAddress! + connection.written, bytes.count - connection.written, Int32(MSG_NOSIGNAL))
            }
            if count < 0 {
                if errno == EINTR { continue }
                return errno == EAGAIN
            }
            connection.written += count
        }
        return false
    }

    /// Takes every pending connection; false when accept() ran out of descriptors or memory.
    private func accept(into connections: inout [Connection]) -> Bool {
        while true {
            let fd = Glibc.accept(listenFD, nil, nil)
            guard fd >= 0 else {
                let code = errno
                if code == EINTR || code == ECONNABORTED { continue }
                return !(code == EMFILE || code == ENFILE || code == ENOBUFS || code == ENOMEM)
            }
            guard Self.makeNonBlockingCloseOnExec(fd) else {
                close(fd)
                continue
            }
            if connections.count >= Self.maxConnections {
                guard let oldest = connections.firstIndex(where: { !$0.responded }) else {
                    // Every slot is writing a response: those finish soon; this one is refused.
                    close(fd)
                    continue
                }
                close(connections[oldest].fd)
                connections.remove(at: oldest)
            }
            connections.append(Connection(fd: fd, deadline: clock.now + requestTimeout))
        }
    }
}
