import HCI
import Synchronization

/// The open/close state machine shared by the descriptor-based transports, so each transport
/// only has to say how its descriptor is obtained.
final class LinkLifecycle: Sendable {
    private enum Phase {
        case idle
        /// `interrupt` is signalled by `close()` to abandon a slow open (TCP retrying).
        case opening(interrupt: WakePipe)
        case open(DescriptorLink)
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

    /// Installs the link and starts its reader, unless `close()` ran while opening.
    func finishOpen(
        _ link: DescriptorLink, handler: @escaping @Sendable (HCITransportEvent) -> Void
    ) throws(HCITransportError) {
        let installed = phase.withLock { phase -> Bool in
            guard case .opening = phase else { return false }
            phase = .open(link)
            return true
        }
        guard installed else {
            link.discard()
            throw .cancelled("opening \(name)")
        }
        if let source = creditSource.withLock({ $0 }) { link.setCreditSource(source) }
        link.start(handler: handler)
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

    func link() throws(HCITransportError) -> DescriptorLink {
        try phase.withLock { phase throws(HCITransportError) in
            guard case let .open(link) = phase else { throw .notOpen(name) }
            return link
        }
    }

    /// The open link, if any (nil while opening or after close).
    var openLink: DescriptorLink? {
        phase.withLock { phase in
            if case let .open(link) = phase { return link }
            return nil
        }
    }

    // What every descriptor transport forwards to its open link (nothing to do when none is open).

    func discardQueuedACL(handle: UInt16) {
        openLink?.discardQueuedACL(handle: handle)
    }

    func discardQueuedPackets() {
        openLink?.discardQueuedPackets()
    }

    func combiningWrites<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        guard let link = openLink else { return try body() }
        return try link.combiningWrites(body)
    }

    /// Kept for the link an open makes, and given to the one already open.
    func setCreditSource(_ read: @escaping @Sendable () -> ACLCredits) {
        let source = CreditSource(read)
        creditSource.withLock { $0 = source }
        openLink?.setCreditSource(source)
    }

    /// Idempotent; an open link reports `.closed(nil)` from its reader thread.
    func close() {
        phase.withLock { phase in
            switch phase {
            case .idle: phase = .closed
            case let .opening(interrupt):
                interrupt.signal()
                phase = .closed
            case let .open(link):
                link.stop()
                phase = .closed
            case .closed: break
            }
        }
    }
}
