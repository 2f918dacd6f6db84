#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import BLECore
import CBluetoothShim
import HCI
import Logging

/// Connects to an H4-over-TCP controller, retrying until its server listens. Runs on a dedicated
/// thread: every wait (connect in progress, back-off) is a poll() that `interrupt` cuts short.
struct TCPConnector: Sendable {
    enum Outcome: Sendable {
        case connected(Int32)
        case failed(HCITransportError)
        /// `interrupt` was signalled (task cancelled or transport closed).
        case interrupted
    }

    private enum Attempt {
        case connected(Int32)
        case retry(String)
        case failed(HCITransportError)
        case interrupted
    }

    let host: String
    let port: UInt16
    let name: String
    let logger: Logger

    static let initialDelayMilliseconds: Int32 = 50
    static let maximumDelayMilliseconds: Int32 = 1000
    /// How long one connect may stay in progress before it counts as a timed-out attempt.
    static let connectTimeoutMilliseconds: Int32 = 5000
    /// Interval between info-level "still waiting" messages; each retry is logged at debug.
    static let infoInterval: Duration = .seconds(5)

    func connectWithRetry(interrupt: WakePipe) -> Outcome {
        let clock = ContinuousClock()
        var delay = Self.initialDelayMilliseconds
        var attempts = 0
        var lastInfo = clock.now
        while true {
            attempts += 1
            switch attempt(interrupt: interrupt) {
            case let .connected(fd):
                if attempts > 1 { logger.info("connected to \(name) after \(attempts) attempts") }
                return .connected(fd)
            case let .failed(error):
                return .failed(error)
            case .interrupted:
                return .interrupted
            case let .retry(reason):
                logger.debug("connecting to \(name) failed (\(reason)); retrying in \(delay) ms, attempt \(attempts)")
                if clock.now - lastInfo >= Self.infoInterval {
                    logger.info("still waiting for the controller at \(name) (\(reason)); \(attempts) attempts so far")
                    lastInfo = clock.now
                }
                if waitForInterrupt(interrupt, milliseconds: delay, clock: clock) { return .interrupted }
                delay = min(delay * 2, Self.maximumDelayMilliseconds)
            }
        }
    }

    /// Waits `milliseconds` on the monotonic clock; `true` if interrupted first.
    private func waitForInterrupt(_ interrupt: WakePipe, milliseconds: Int32, clock: ContinuousClock) -> Bool {
        let deadline = clock.now + .milliseconds(milliseconds)
        var fds = [pollfd(fd: interrupt.readDescriptor, events: Int16(POLLIN), revents: 0)]
        while true {
            let remaining = clock.now.duration(to: deadline)
            guard remaining > .zero else { return false }
            let ms = Int32(clamping: remaining.wholeMilliseconds + 1)
            fds[0].revents = 0
            let ready = SystemCall.poll(&fds, timeout: ms)
            if ready > 0 { return true }
            if ready < 0 { return false }  // poll itself failed: fall back to retrying at once
        }
    }

    private func attempt(interrupt: WakePipe) -> Attempt {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = bls_sock_stream()
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            let reason = String(cString: gai_strerror(status))
            if status == EAI_AGAIN { return .retry("name lookup for '\(host)' failed temporarily: \(reason)") }
            return .failed(.invalidSpecification(
                name, reason: "cannot resolve host '\(host)': \(reason); check the host name or use an IP address"))
        }
        defer { freeaddrinfo(first) }

        var lastError: Int32 = ECONNREFUSED
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry {
            entry = current.pointee.ai_next
            let fd = bls_tcp_socket(current.pointee.ai_family)
            guard fd >= 0 else {
                lastError = errno
                continue
            }
            switch connect(fd: fd, address: current.pointee.ai_addr, length: current.pointee.ai_addrlen, interrupt: interrupt) {
            case 0:
                // Small HCI packets must not wait for Nagle coalescing; failure only costs latency.
                if bls_set_tcp_nodelay(fd) != 0 {
                    logger.warning("could not set TCP_NODELAY on \(name): \(SystemCall.message(errno))")
                }
                return .connected(fd)
            case -1:
                closeDescriptor(fd)
                return .interrupted
            case let code:
                closeDescriptor(fd)
                lastError = code
            }
        }
        switch lastError {
        case ECONNREFUSED, ETIMEDOUT, EHOSTUNREACH, ENETUNREACH, ECONNRESET, ECONNABORTED, EHOSTDOWN, ENETDOWN,
            EADDRNOTAVAIL:
            return .retry(SystemCall.message(lastError))
        default:
            return .failed(SystemCall.failure("connect to \(name)", errno: lastError))
        }
    }

    /// 0 when connected, -1 when interrupted, otherwise the errno of the failure.
    private func connect(
        fd: Int32, address: UnsafeMutablePointer<sockaddr>?, length: socklen_t, interrupt: WakePipe
    ) -> Int32 {
        #if canImport(Darwin)
        let result = Darwin.connect(fd, address, length)
        #elseif canImport(Musl)
        let result = Musl.connect(fd, address, length)
        #else
        let result = Glibc.connect(fd, address, length)
        #endif
        if result == 0 { return 0 }
        let code = errno
        guard code == EINPROGRESS || code == EINTR else { return code }
        var fds = [
            pollfd(fd: fd, events: Int16(POLLOUT), revents: 0),
            pollfd(fd: interrupt.readDescriptor, events: Int16(POLLIN), revents: 0),
        ]
        let ready = SystemCall.poll(&fds, timeout: Self.connectTimeoutMilliseconds)
        if ready < 0 { return errno }
        if fds[1].revents != 0 { return -1 }
        if ready == 0 { return ETIMEDOUT }
        return bls_socket_pending_error(fd)
    }
}
