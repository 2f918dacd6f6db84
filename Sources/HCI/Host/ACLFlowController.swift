import BLECore
import Synchronization

/// Why an L2CAP PDU could not be queued on a link.
public enum ACLSendError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The link is closed (or was never registered): nothing may be sent on its handle any more.
    case linkClosed(LinkID)
    case queueFull(LinkID, limit: Int)
    case pduTooLong(Int)
    case notConfigured

    public var description: String {
        switch self {
        case let .linkClosed(link): return "\(link) is closed"
        case let .queueFull(link, limit): return "ACL queue of \(link) is full (\(limit) PDUs)"
        case let .pduTooLong(length): return "L2CAP PDU of \(length) bytes exceeds the 65539-byte maximum"
        case .notConfigured: return "controller buffers are unknown: the controller is not initialised"
        }
    }
}

/// Host-to-controller ACL flow control (Core spec Vol 4 Part E 4.1.1), per link.
///
/// The host may have at most `bufferCount` ACL packets in the controller at once; Number Of Completed
/// Packets returns credits, and a disconnection reclaims that link's credits. PDUs wait here, never
/// in the transport, and are fragmented to the controller's packet length only when a credit is
/// available. When credits are scarce, links take turns one packet each (round-robin) so a central
/// that stops acknowledging cannot starve the others. A link that holds credits and gets no
/// completion for `transmitTimeout` is reported (Linux's ACL TX timeout) so the host can drop it.
///
/// Calling context: every method may be called from any thread. State is behind a mutex; the
/// transport `send` (which only queues, never blocks) is called under it so packet order on the
/// wire equals credit order. Observers run without the lock.
public final class ACLFlowController: Sendable {
    public struct Statistics: Sendable, Equatable {
        // Counters are Int64: a 32-bit Int (armhf) would overflow, and trap, within weeks of streaming.
        public var packetsSent: Int64 = 0
        public var pdusSent: Int64 = 0
        public var creditsReturned: Int64 = 0
        public var creditsReclaimed: Int64 = 0
        public var maxInFlight = 0
        /// Packets the transport refused (closed, or its queue full); their credits were returned.
        public var writesRefused: Int64 = 0
        /// PDUs dropped because their link closed before they were sent.
        public var pdusDroppedOnClose: Int64 = 0
    }

    /// A class, so the hot path mutates it through one reference instead of a dictionary lookup
    /// (and a copy) per field.
    final class LinkQueue {
        let link: Link
        var queue: [QueuedPDU] = []
        var queueHead = 0
        /// Bytes of the head PDU already fragmented out.
        var headOffset = 0
        var inFlight = 0
        /// When the link last made progress (a completion, or its first packet in flight).
        var lastProgress = MonotonicInstant(nanoseconds: 0)
        /// Already reported as timed out; cleared by the next completion.
        var timedOut = false

        init(link: Link) { self.link = link }

        var hasPending: Bool { queueHead < queue.count }
        var pendingPDUs: Int { queue.count - queueHead }
    }

    /// A PDU waiting for credits; `start` skips the headroom its producer left in front.
    struct QueuedPDU {
        var bytes: [UInt8]
        var start: Int
    }

    struct State {
        var bufferSize = 0
        var bufferCount = 0
        var inFlight = 0
        var links: [LinkID: LinkQueue] = [:]
        /// The open link on each handle (Number Of Completed Packets names handles).
        var byHandle: [UInt16: LinkQueue] = [:]
        /// Links in connection order (the same objects as `links`); the round-robin cursor walks it.
        var order: [LinkQueue] = []
        var cursor = 0
        var statistics = Statistics()
        var reservedLinks = 1
        var watchdog: TimerHandle?

        /// Credits one link may hold: one is kept back for each other link there is or may be (up
        /// to the configured maximum of centrals), because credits a stalled central holds return
        /// only when it acknowledges or its link drops (the transmit timeout, seconds later). A
        /// lone link is capped too: a central that connects beside a stalled one still gets its
        /// discovery answered. With one central configured, a link may use every credit.
        var perLinkLimit: Int {
            max(1, bufferCount - (max(order.count, reservedLinks) - 1))
        }
    }

    public typealias DrainObserver = @Sendable (Link) -> Void

    private let state = Mutex(State())
    private let send: @Sendable (HCIPacket) -> Bool
    private let discardQueued: @Sendable (UInt16) -> Void
    /// An array, not a dictionary: reporting a drain copies it by reference, without allocating.
    private let observers = Mutex<[(id: UInt64, call: DrainObserver)]>([])
    private let nextObserverID = Atomic<UInt64>(0)
    private let timeoutHandler = Mutex<TimeoutHandler?>(nil)
    private let clock: any HostClock
    public let maxQueuedPDUsPerLink: Int
    public let transmitTimeout: Duration

    struct TimeoutHandler: Sendable { let call: @Sendable (Link) -> Void }

    /// - Parameters:
    ///   - send: queues a packet on the transport; `false` when the transport refused it. Called
    ///     with the lock held, so it must not block (transports only queue).
    ///   - discardQueued: drops packets for a handle the transport has queued but not started, so
    ///     nothing of a closed link reaches a new link that reuses its handle.
    public init(maxQueuedPDUsPerLink: Int = 256, transmitTimeout: Duration = .seconds(10),
                clock: any HostClock = SystemClock.shared,
                send: @escaping @Sendable (HCIPacket) -> Bool,
                discardQueued: @escaping @Sendable (UInt16) -> Void = { _ in }) {
        self.maxQueuedPDUsPerLink = maxQueuedPDUsPerLink
        self.transmitTimeout = transmitTimeout
        self.clock = clock
        self.send = send
        self.discardQueued = discardQueued
    }

    // MARK: Observers

    /// Registers a listener for "this link's queue became empty" (the notification engine, GATT
    /// responses waiting for room, SMP). Keep the token; `removeDrainObserver` unregisters.
    @discardableResult
    public func addDrainObserver(_ observer: @escaping DrainObserver) -> UInt64 {
        let id = nextObserverID.wrappingAdd(1, ordering: .relaxed).newValue
        observers.withLock { $0.append((id, observer)) }
        return id
    }

    public func removeDrainObserver(_ id: UInt64) {
        observers.withLock { $0.removeAll { $0.id == id } }
    }

    /// Called (without the lock) for a link whose packets have not completed for `transmitTimeout`.
    public func setTransmitTimeoutHandler(_ handler: @escaping @Sendable (Link) -> Void) {
        timeoutHandler.withLock { $0 = TimeoutHandler(call: handler) }
    }

    private func reportDrained(_ drained: DrainedLinks) {
        guard !drained.isEmpty else { return }
        let listeners = observers.withLock { $0 }
        drained.forEach { link in listeners.forEach { $0.call(link) } }
    }

    // MARK: Configuration and links

    /// Sets the controller's buffer geometry and forgets every link (a controller reset).
    public func configure(bufferSize: Int, bufferCount: Int) {
        let watchdog = state.withLock { state -> TimerHandle? in
            let reserved = state.reservedLinks
            let watchdog = state.watchdog
            state = State()
            state.bufferSize = max(1, bufferSize)
            state.bufferCount = max(0, bufferCount)
            state.reservedLinks = reserved
            return watchdog
        }
        watchdog?.cancel()
    }

    /// How many simultaneous links to keep credits in reserve for while more than one exists
    /// (the configured maximum number of centrals).
    public func reserveCredits(forLinks count: Int) {
        state.withLock { $0.reservedLinks = max(1, count) }
    }

    public func add(_ link: Link) {
        state.withLock { state in
            guard state.links[link.id] == nil else { return }
            let queue = LinkQueue(link: link)
            state.links[link.id] = queue
            state.byHandle[link.handle] = queue
            state.order.append(queue)
        }
    }

    /// Drops the link's queue, reclaims the credits its packets held in the controller, and has
    /// the transport discard its packets not yet written. Returns the reclaimed credits.
    @discardableResult
    public func remove(_ link: Link) -> Int {
        let outcome: (reclaimed: Int, drained: DrainedLinks)? = state.withLock { state in
            guard let queue = state.links.removeValue(forKey: link.id) else { return nil }
            if state.byHandle[link.handle] === queue { state.byHandle.removeValue(forKey: link.handle) }
            state.inFlight -= queue.inFlight
            state.statistics.creditsReclaimed += Int64(queue.inFlight)
            state.statistics.pdusDroppedOnClose += Int64(queue.pendingPDUs)
            if let index = state.order.firstIndex(where: { $0 === queue }) {
                state.order.remove(at: index)
                if state.cursor > index { state.cursor -= 1 }
                if state.cursor >= state.order.count { state.cursor = 0 }
            }
            return (queue.inFlight, pump(&state))
        }
        guard let outcome else { return 0 }
        discardQueued(link.handle)
        reportDrained(outcome.drained)
        return outcome.reclaimed
    }

    // MARK: Sending

    /// Bytes in front of a PDU that let a single-packet PDU be framed in place: the H4 indicator and
    /// the 4-byte ACL header.
    public static let frameHeadroom = 1 + HCIACLPacket.headerLength

    /// Queues a complete L2CAP PDU (basic header included) on a link and sends what credits allow.
    /// `headroom` bytes at the front of `pdu` are not part of the PDU: with `frameHeadroom` of them,
    /// a PDU that fits one ACL packet and finds a free credit goes to the transport in this very
    /// buffer, with no copy and no allocation.
    public func enqueue(_ pdu: consuming [UInt8], on link: Link, headroom: Int = 0) throws(ACLSendError) {
        let start = min(max(0, headroom), pdu.count)
        guard pdu.count - start <= ACLReassembler.maximumPDULength else { throw .pduTooLong(pdu.count - start) }
        // Sizes are checked before the buffer is moved out, so a refused fast path still queues it.
        let length = pdu.count - start
        var pending: [UInt8]? = consume pdu
        let result: Result<DrainedLinks, ACLSendError> = state.withLock { state in
            guard state.bufferCount > 0 else { return .failure(.notConfigured) }
            guard let queue = state.links[link.id] else { return .failure(.linkClosed(link.id)) }
            guard queue.pendingPDUs < maxQueuedPDUsPerLink else {
                return .failure(.queueFull(link.id, limit: maxQueuedPDUsPerLink))
            }
            if Self.framesInPlace(start: start, length: length, bufferSize: state.bufferSize), !queue.hasPending,
               queue.inFlight < state.perLinkLimit, state.inFlight < state.bufferCount, var bytes = pending.take() {
                sendInPlace(&bytes, start: start, queue: queue, state: &state)
                // The queue was empty before and after: no "drained" transition to report, and the
                // caller (usually the notification engine's pump) carries on by itself.
                return .success(DrainedLinks())
            }
            queue.queue.append(QueuedPDU(bytes: pending.take() ?? [], start: start))
            return .success(pump(&state))
        }
        switch result {
        case let .success(drained): reportDrained(drained)
        case let .failure(error): throw error
        }
    }

    /// A PDU of `length` bytes from `start` fits one packet and has room for its headers in front.
    private static func framesInPlace(start: Int, length: Int, bufferSize: Int) -> Bool {
        start >= frameHeadroom && length <= bufferSize
    }

    /// Sends a PDU that fits one packet in its own buffer (see `framedInPlace`).
    private func sendInPlace(_ bytes: inout [UInt8], start: Int, queue: LinkQueue, state: inout State) {
        guard send(Self.framedInPlace(&bytes, start: start, handle: queue.link.handle)) else {
            state.statistics.writesRefused += 1
            return
        }
        took(credit: queue, state: &state)
        state.statistics.pdusSent += 1
    }

    /// Writes the H4 indicator and ACL header into the `frameHeadroom` bytes before `start` and
    /// wraps the buffer itself: no copy unless there was more headroom than that.
    private static func framedInPlace(_ bytes: inout [UInt8], start: Int, handle: UInt16) -> HCIPacket {
        let length = bytes.count - start
        let header = handle & 0x0FFF | UInt16(ACLPacketBoundary.firstNonFlushable.rawValue) << 12
        let front = start - frameHeadroom
        bytes[front] = HCIPacketType.acl.rawValue
        bytes[front + 1] = UInt8(truncatingIfNeeded: header)
        bytes[front + 2] = UInt8(truncatingIfNeeded: header >> 8)
        bytes[front + 3] = UInt8(truncatingIfNeeded: length)
        bytes[front + 4] = UInt8(truncatingIfNeeded: length >> 8)
        // The indicator was just written, so either way of wrapping yields a valid packet.
        return HCIPacket(h4Bytes: front == 0 ? bytes : Array(bytes[front...]))
            ?? HCIPacket(type: .acl, body: Array(bytes[(front + 1)...]))
    }

    /// Books one packet of `queue`'s link as in the controller.
    private func took(credit queue: LinkQueue, state: inout State) {
        state.inFlight += 1
        state.statistics.packetsSent += 1
        state.statistics.maxInFlight = max(state.statistics.maxInFlight, state.inFlight)
        let wasIdle = queue.inFlight == 0
        queue.inFlight += 1
        if wasIdle {
            queue.lastProgress = clock.now
            armWatchdog(&state, deadline: queue.lastProgress + transmitTimeout)
        }
    }

    /// Applies Number Of Completed Packets. Counts for handles with no open link are ignored (the
    /// link is gone and its credits were already reclaimed); counts above what is in flight are clamped.
    public func completePackets(_ entries: [HCINumberOfCompletedPacketsEvent.Entry]) {
        entries.withUnsafeBufferPointer { completePackets($0) }
    }

    /// `completePackets` for an event with one entry.
    public func completePackets(_ entry: HCINumberOfCompletedPacketsEvent.Entry) {
        withUnsafePointer(to: entry) { completePackets(UnsafeBufferPointer(start: $0, count: 1)) }
    }

    private func completePackets(_ entries: UnsafeBufferPointer<HCINumberOfCompletedPacketsEvent.Entry>) {
        let drained: DrainedLinks = state.withLock { state in
            var progressed = false
            for entry in entries {
                guard let queue = state.byHandle[entry.handle] else { continue }
                let returned = min(Int(entry.completed), queue.inFlight)
                guard returned > 0 else { continue }
                queue.inFlight -= returned
                progressed = true
                state.inFlight -= returned
                state.statistics.creditsReturned += Int64(returned)
            }
            if progressed {
                // One clock read per event, only for links still waiting on the controller.
                let now = clock.now
                for entry in entries {
                    guard let queue = state.byHandle[entry.handle], queue.inFlight > 0 else { continue }
                    queue.lastProgress = now
                    queue.timedOut = false
                    armWatchdog(&state, deadline: now + transmitTimeout)
                }
            }
            return pump(&state)
        }
        reportDrained(drained)
    }

    public var availableCredits: Int { state.withLock { $0.bufferCount - $0.inFlight } }
    public var packetsInFlight: Int { state.withLock { $0.inFlight } }
    /// Buffers in the controller, how many hold our packets and how many PDUs wait for one, read together.
    public var credits: ACLCredits {
        state.withLock { state in
            ACLCredits(inFlight: state.inFlight, capacity: state.bufferCount,
                       waiting: state.links.values.reduce(0) { $0 + $1.pendingPDUs })
        }
    }
    public var statistics: Statistics { state.withLock { $0.statistics } }
    public func packetsInFlight(on link: Link) -> Int { state.withLock { $0.links[link.id]?.inFlight ?? 0 } }
    public func queuedPDUs(on link: Link) -> Int { state.withLock { $0.links[link.id]?.pendingPDUs ?? 0 } }
    /// Credits one link may hold now (see `State.perLinkLimit`).
    public var perLinkCreditLimit: Int { state.withLock { $0.perLinkLimit } }

    /// Sends fragments while credits last, one per link per turn. Returns links whose queue just
    /// became empty.
    private func pump(_ state: inout State) -> DrainedLinks {
        var drained = DrainedLinks()
        while state.inFlight < state.bufferCount, !state.order.isEmpty {
            var progressed = false
            for _ in 0..<state.order.count {
                guard state.inFlight < state.bufferCount else { break }
                if state.cursor >= state.order.count { state.cursor = 0 }
                let queue = state.order[state.cursor]
                state.cursor = (state.cursor + 1) % state.order.count
                guard queue.hasPending, queue.inFlight < state.perLinkLimit else { continue }
                sendFragment(of: queue, state: &state)
                if !queue.hasPending { drained.append(queue.link) }
                progressed = true
            }
            if !progressed { break }
        }
        return drained
    }

    private func sendFragment(of queue: LinkQueue, state: inout State) {
        let pduStart = queue.queue[queue.queueHead].start
        if queue.headOffset == 0,
           Self.framesInPlace(start: pduStart, length: queue.queue[queue.queueHead].bytes.count - pduStart, bufferSize: state.bufferSize) {
            // A whole PDU in one packet, with room for the headers: framed in its own buffer, which
            // is moved out of the queue first (no other reference) so writing the headers copies nothing.
            var bytes: [UInt8] = []
            swap(&bytes, &queue.queue[queue.queueHead].bytes)
            sendInPlace(&bytes, start: pduStart, queue: queue, state: &state)
            advance(queue)
            return
        }
        let queued = queue.queue[queue.queueHead]
        let pdu = queued.bytes[queued.start...]
        let start = pdu.startIndex + queue.headOffset
        let end = min(pdu.endIndex, start + state.bufferSize)
        let boundary: ACLPacketBoundary = queue.headOffset == 0 ? .firstNonFlushable : .continuing
        let accepted = send(HCIACLPacket.frame(handle: queue.link.handle, boundary: boundary, fragment: pdu[start..<end]))
        if !accepted {
            // The credit stays ours; the rest of this PDU is useless to the peer without this part.
            state.statistics.writesRefused += 1
        }
        if accepted && end < pdu.endIndex {
            queue.headOffset = end - pdu.startIndex
        } else {
            if accepted { state.statistics.pdusSent += 1 }
            advance(queue)
        }
        if accepted { took(credit: queue, state: &state) }
    }

    /// Moves past the head PDU.
    private func advance(_ queue: LinkQueue) {
        queue.queueHead += 1
        queue.headOffset = 0
        // Compact occasionally so the array does not grow without bound.
        if queue.queueHead > 32, queue.queueHead * 2 > queue.queue.count {
            queue.queue.removeFirst(queue.queueHead)
            queue.queueHead = 0
        }
    }

    // MARK: Transmit timeout

    private func armWatchdog(_ state: inout State, deadline: MonotonicInstant) {
        guard state.watchdog == nil else { return }
        state.watchdog = clock.schedule(at: deadline) { [weak self] in self?.checkTransmitTimeouts() }
    }

    private func checkTransmitTimeouts() {
        let expired: [Link] = state.withLock { state in
            state.watchdog = nil
            let now = clock.now
            var expired: [Link] = []
            var next: MonotonicInstant?
            for queue in state.links.values where queue.inFlight > 0 && !queue.timedOut {
                let deadline = queue.lastProgress + transmitTimeout
                if deadline <= now {
                    expired.append(queue.link)
                    queue.timedOut = true
                } else {
                    next = min(next ?? deadline, deadline)
                }
            }
            if let next { armWatchdog(&state, deadline: next) }
            return expired
        }
        guard !expired.isEmpty, let handler = timeoutHandler.withLock({ $0 }) else { return }
        expired.forEach(handler.call)
    }
}
