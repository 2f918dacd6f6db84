import Synchronization

/// Why an L2CAP PDU could not be queued for a connection.
public enum ACLSendError: Error, Equatable, Sendable, CustomStringConvertible {
    case unknownConnection(UInt16)
    case queueFull(handle: UInt16, limit: Int)
    case pduTooLong(Int)
    case notConfigured

    public var description: String {
        switch self {
        case let .unknownConnection(handle): return "no connection with handle 0x\(String(handle, radix: 16))"
        case let .queueFull(handle, limit): return "ACL queue of connection 0x\(String(handle, radix: 16)) is full (\(limit) PDUs)"
        case let .pduTooLong(length): return "L2CAP PDU of \(length) bytes exceeds the 65539-byte maximum"
        case .notConfigured: return "controller buffers are unknown: the controller is not initialised"
        }
    }
}

/// Host-to-controller ACL flow control (Core spec Vol 4 Part E 4.1.1).
///
/// The host may have at most `bufferCount` ACL packets in the controller at once; Number Of Completed
/// Packets returns credits, and a disconnection reclaims that connection's credits. PDUs wait here,
/// never in the transport, and are fragmented to the controller's packet length only when a credit is
/// available. When credits are scarce, connections take turns one packet each (round-robin) so a
/// central that stops acknowledging cannot starve the others.
///
/// Calling context: every method may be called from any thread; state is behind a mutex and the
/// transport write happens under it so packet order on the wire equals credit order.
public final class ACLFlowController: Sendable {
    public struct Statistics: Sendable, Equatable {
        public var packetsSent = 0
        public var pdusSent = 0
        public var creditsReturned = 0
        public var creditsReclaimed = 0
        public var maxInFlight = 0
    }

    struct Connection {
        var queue: [QueuedPDU] = []
        var queueHead = 0
        /// Bytes of the head PDU already fragmented out.
        var headOffset = 0
        var inFlight = 0

        var hasPending: Bool { queueHead < queue.count }
        var pendingPDUs: Int { queue.count - queueHead }
    }

    /// A PDU waiting for credits; `start` skips the headroom its producer left in front.
    struct QueuedPDU {
        var bytes: [UInt8]
        var start: Int
        var length: Int { bytes.count - start }
    }

    struct State {
        var bufferSize = 0
        var bufferCount = 0
        var inFlight = 0
        var connections: [UInt16: Connection] = [:]
        /// Handles in connection order; the round-robin cursor walks it.
        var order: [UInt16] = []
        var cursor = 0
        var statistics = Statistics()
        var fairShareConnections = 1

        /// Credits one connection may hold: all of them when alone, otherwise one is kept back for
        /// each other connection, because credits a stalled central holds return only when it acks
        /// or its link drops.
        var perConnectionLimit: Int {
            max(1, bufferCount - (max(order.count, fairShareConnections) - 1))
        }
    }

    private let state = Mutex(State())
    private let send: @Sendable (HCIPacket) -> Void
    /// Boxed: a bare function type stored in a Mutex recursed through reabstraction thunks in -O builds.
    struct DrainedHandler: Sendable { let call: @Sendable (UInt16) -> Void }
    private let drainedHandler: Mutex<DrainedHandler>
    public let maxQueuedPDUsPerConnection: Int

    /// - Parameters:
    ///   - send: writes a packet to the transport; called with the lock held to keep wire order.
    ///   - onQueueDrained: called (without the lock) when a connection's queue becomes empty.
    public init(maxQueuedPDUsPerConnection: Int = 256,
                send: @escaping @Sendable (HCIPacket) -> Void,
                onQueueDrained: @escaping @Sendable (UInt16) -> Void = { _ in }) {
        self.maxQueuedPDUsPerConnection = maxQueuedPDUsPerConnection
        self.send = send
        self.drainedHandler = Mutex(DrainedHandler(call: onQueueDrained))
    }

    /// Replaces the drained callback; the layer that owns queued values (the notification engine)
    /// installs it after the host created the flow controller.
    public func setQueueDrainedHandler(_ handler: @escaping @Sendable (UInt16) -> Void) {
        drainedHandler.withLock { $0 = DrainedHandler(call: handler) }
    }

    private func reportDrained(_ handle: UInt16) {
        let handler = drainedHandler.withLock { $0 }
        handler.call(handle)
    }

    /// Sets the controller's buffer geometry and forgets every connection (a controller reset).
    public func configure(bufferSize: Int, bufferCount: Int) {
        state.withLock { state in
            let fairShare = state.fairShareConnections
            state = State()
            state.bufferSize = max(1, bufferSize)
            state.bufferCount = max(0, bufferCount)
            state.fairShareConnections = fairShare
        }
    }

    /// How many simultaneous connections to keep credits in reserve for, even before they exist
    /// (the configured maximum number of centrals).
    public func reserveCredits(forConnections count: Int) {
        state.withLock { $0.fairShareConnections = max(1, count) }
    }

    public func addConnection(_ handle: UInt16) {
        state.withLock { state in
            guard state.connections[handle] == nil else { return }
            state.connections[handle] = Connection()
            state.order.append(handle)
        }
    }

    /// Drops the connection's queue and reclaims the credits its packets held in the controller.
    @discardableResult
    public func removeConnection(_ handle: UInt16) -> Int {
        let (reclaimed, drained): (Int, DrainedHandles) = state.withLock { state in
            guard let connection = state.connections.removeValue(forKey: handle) else { return (0, DrainedHandles()) }
            state.inFlight -= connection.inFlight
            state.statistics.creditsReclaimed += connection.inFlight
            if let index = state.order.firstIndex(of: handle) {
                state.order.remove(at: index)
                if state.cursor > index { state.cursor -= 1 }
                if state.cursor >= state.order.count { state.cursor = 0 }
            }
            return (connection.inFlight, pump(&state))
        }
        drained.forEach { reportDrained($0) }
        return reclaimed
    }

    /// Bytes in front of a PDU that let a single-packet PDU be framed in place: the H4 indicator and
    /// the 4-byte ACL header.
    public static let frameHeadroom = 1 + HCIACLPacket.headerLength

    /// Queues a complete L2CAP PDU (basic header included) for a connection and sends what credits allow.
    /// `headroom` bytes at the front of `pdu` are not part of the PDU: with `frameHeadroom` of them,
    /// a PDU that fits one ACL packet and finds a free credit goes to the transport in this very
    /// buffer, with no copy and no allocation.
    public func enqueue(_ pdu: consuming [UInt8], on handle: UInt16, headroom: Int = 0) throws(ACLSendError) {
        let start = min(max(0, headroom), pdu.count)
        guard pdu.count - start <= ACLReassembler.maximumPDULength else { throw .pduTooLong(pdu.count - start) }
        // Sizes are checked before the buffer is moved out, so a refused fast path still queues it.
        let length = pdu.count - start
        var pending: [UInt8]? = consume pdu
        let result: Result<DrainedHandles, ACLSendError> = state.withLock { state in
            guard state.bufferCount > 0 else { return .failure(.notConfigured) }
            guard let connection = state.connections[handle] else { return .failure(.unknownConnection(handle)) }
            guard connection.pendingPDUs < maxQueuedPDUsPerConnection else {
                return .failure(.queueFull(handle: handle, limit: maxQueuedPDUsPerConnection))
            }
            if start >= Self.frameHeadroom, length <= state.bufferSize, !connection.hasPending,
               connection.inFlight < state.perConnectionLimit, state.inFlight < state.bufferCount, var bytes = pending.take() {
                sendInPlace(&bytes, start: start, handle: handle, state: &state)
                // The queue was empty before and after: no "drained" transition to report, and the
                // caller (usually the notification engine's pump) carries on by itself.
                return .success(DrainedHandles())
            }
            state.connections[handle]!.queue.append(QueuedPDU(bytes: pending.take() ?? [], start: start))
            return .success(pump(&state))
        }
        switch result {
        case let .success(drained): drained.forEach { reportDrained($0) }
        case let .failure(error): throw error
        }
    }

    /// Writes the H4 indicator and ACL header into the headroom and hands the buffer over as is.
    private func sendInPlace(_ bytes: inout [UInt8], start: Int, handle: UInt16, state: inout State) {
        let length = bytes.count - start
        let header = handle & 0x0FFF | UInt16(ACLPacketBoundary.firstNonFlushable.rawValue) << 12
        let front = start - Self.frameHeadroom
        bytes[front] = HCIPacketType.acl.rawValue
        bytes[front + 1] = UInt8(truncatingIfNeeded: header)
        bytes[front + 2] = UInt8(truncatingIfNeeded: header >> 8)
        bytes[front + 3] = UInt8(truncatingIfNeeded: length)
        bytes[front + 4] = UInt8(truncatingIfNeeded: length >> 8)
        let frame = front == 0 ? bytes : Array(bytes[front...])
        if let packet = HCIPacket(h4Bytes: frame) { send(packet) }
        state.connections[handle]!.inFlight += 1
        state.inFlight += 1
        state.statistics.packetsSent += 1
        state.statistics.pdusSent += 1
        state.statistics.maxInFlight = max(state.statistics.maxInFlight, state.inFlight)
    }

    /// Applies Number Of Completed Packets. Counts for unknown handles are ignored (the connection
    /// is gone and its credits were already reclaimed); counts above what is in flight are clamped.
    public func completePackets(_ entries: [HCINumberOfCompletedPacketsEvent.Entry]) {
        let drained: DrainedHandles = state.withLock { state in
            for entry in entries {
                guard var connection = state.connections[entry.handle] else { continue }
                let returned = min(Int(entry.completed), connection.inFlight)
                connection.inFlight -= returned
                state.connections[entry.handle] = connection
                state.inFlight -= returned
                state.statistics.creditsReturned += returned
            }
            return pump(&state)
        }
        drained.forEach { reportDrained($0) }
    }

    public var availableCredits: Int { state.withLock { $0.bufferCount - $0.inFlight } }
    public var packetsInFlight: Int { state.withLock { $0.inFlight } }
    public var statistics: Statistics { state.withLock { $0.statistics } }
    public func packetsInFlight(on handle: UInt16) -> Int { state.withLock { $0.connections[handle]?.inFlight ?? 0 } }
    public func queuedPDUs(on handle: UInt16) -> Int { state.withLock { $0.connections[handle]?.pendingPDUs ?? 0 } }

    /// Sends fragments while credits last, one per connection per turn. Returns connections whose
    /// queue just became empty.
    private func pump(_ state: inout State) -> DrainedHandles {
        var drained = DrainedHandles()
        while state.inFlight < state.bufferCount, !state.order.isEmpty {
            var progressed = false
            for _ in 0..<state.order.count {
                guard state.inFlight < state.bufferCount else { break }
                if state.cursor >= state.order.count { state.cursor = 0 }
                let handle = state.order[state.cursor]
                state.cursor = (state.cursor + 1) % state.order.count
                guard var connection = state.connections[handle], connection.hasPending,
                      connection.inFlight < state.perConnectionLimit else { continue }
                sendFragment(of: &connection, handle: handle, state: &state)
                if !connection.hasPending { drained.append(handle) }
                state.connections[handle] = connection
                progressed = true
            }
            if !progressed { break }
        }
        return drained
    }

    private func sendFragment(of connection: inout Connection, handle: UInt16, state: inout State) {
        let queued = connection.queue[connection.queueHead]
        let pdu = queued.bytes[queued.start...]
        let start = pdu.startIndex + connection.headOffset
        let end = min(pdu.endIndex, start + state.bufferSize)
        let boundary: ACLPacketBoundary = connection.headOffset == 0 ? .firstNonFlushable : .continuing
        send(HCIACLPacket.frame(handle: handle, boundary: boundary, fragment: pdu[start..<end]))
        connection.inFlight += 1
        state.inFlight += 1
        state.statistics.packetsSent += 1
        state.statistics.maxInFlight = max(state.statistics.maxInFlight, state.inFlight)
        if end >= pdu.endIndex {
            connection.queueHead += 1
            connection.headOffset = 0
            state.statistics.pdusSent += 1
            // Compact occasionally so the array does not grow without bound.
            if connection.queueHead > 32, connection.queueHead * 2 > connection.queue.count {
                connection.queue.removeFirst(connection.queueHead)
                connection.queueHead = 0
            }
        } else {
            connection.headOffset = end - pdu.startIndex
        }
    }
}
