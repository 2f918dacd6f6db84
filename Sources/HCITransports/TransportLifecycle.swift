import HCI
import Synchronization

/// The open/close state machine shared by the descriptor-based transports, so each transport
/// only has to say how its descriptor is obtained; once open, it holds the descriptor's event loop.
final class TransportLifecycle: Sendable {
    private enum Phase {
        case idle
        /// `interrupt` is signalled by `close()` to abandon a slow open (TCP retrying).
        case opening(interrupt: WakePipe)
        case open(DescriptorEventLoop)
        case closed
    }

    let name: String
    private let phase = Mutex<Phase>(.idle)
    private let creditSource = Mutex<CreditSource?>(nil)

    init(name: String) {
        self.name = name
    }

    /// Claims the transport for opening; the returned pipe is signalled if `close()` intervenes.
    func beginOpen() throws(HCITransportError) -> WakePipe {
        let interrupt = try WakePipe()
        try phase.withLock { phase throws(HCITransportError) in
            switch phase {
            case .idle: phase = .opening(interrupt: interrupt)
            case .opening, .open: throw .alreadyOpen(name)
            case .closed: throw .notOpen(name)
            }
        }
        return interrupt
    }

    /// Installs the event loop and starts it, unless `close()` ran while opening.
    func finishOpen(
        _ loop: DescriptorEventLoop, handler: @escaping @Sendable (HCITransportEvent) -> Void
    ) throws(HCITransportError) {
        let installed = phase.withLock { phase -> Bool in
            guard case .opening = phase else { return false }
            phase = .open(loop)
            return true
        }
        guard installed else {
            loop.discard()
            throw .cancelled("opening \(name)")
        }
        if let source = creditSource.withLock({ $0 }) { loop.setCreditSource(source) }
        loop.start(handler: handler)
    }

    /// Returns to idle after a failed open so the caller may try again (unless closed meanwhile).
    func failOpen() {
        phase.withLock { phase in
            if case .opening = phase { phase = .idle }
        }
    }

    /// Whether `close()` has been called.
    var isClosed: Bool {
        phase.withLock { phase in
            if case .closed = phase { return true }
            return false
        }
    }

    /// The running event loop; throws unless the transport is open.
    func loop() throws(HCITransportError) -> DescriptorEventLoop {
        try phase.withLock { phase throws(HCITransportError) in
            guard case let .open(loop) = phase else { throw .notOpen(name) }
            return loop
        }
    }

    /// The running event loop, if any (nil while opening or after close).
    var runningLoop: DescriptorEventLoop? {
        phase.withLock { phase in
            if case let .open(loop) = phase { return loop }
            return nil
        }
    }

    // What every descriptor transport forwards to its event loop (nothing to do when none runs).

    func discardQueuedACL(handle: UInt16) {
        runningLoop?.discardQueuedACL(handle: handle)
    }

    func discardQueuedPackets() {
        runningLoop?.discardQueuedPackets()
    }

    func combiningWrites<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        guard let loop = runningLoop else { return try body() }
        return try loop.combiningWrites(body)
    }

    /// Kept for the event loop an open starts, and given to the one already running.
    func setCreditSource(_ read: @escaping @Sendable () -> ACLCredits) {
        let source = CreditSource(read)
        creditSource.withLock { $0 = source }
        runningLoop?.setCreditSource(source)
    }

    /// Idempotent; a running event loop reports `.closed(nil)` from its thread.
    func close() {
        phase.withLock { phase in
            switch phase {
            case .idle: phase = .closed
            case let .opening(interrupt):
                interrupt.signal()
                phase = .closed
            case let .open(loop):
                loop.stop()
                phase = .closed
            case .closed: break
            }
        }
    }
}
