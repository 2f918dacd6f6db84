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
        var queue: [[UInt8]] = []
        var queueHead = 0
        /// Bytes of the head PDU already fragmented out.
        var headOffset = 0
        var inFlight = 0

        var hasPending: Bool { queueHead < queue.count }
        var pendingPDUs: Int { queue.count - queueHead }
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
    private let drainedHandler: Mutex<@Sendable (UInt16) -> Void>
    public let maxQueuedPDUsPerConnection: Int

    /// - Parameters:
    ///   - send: writes a packet to the transport; called with the lock held to keep wire order.
    ///   - onQueueDrained: called (without the lock) when a connection's queue becomes empty.
    public init(maxQueuedPDUsPerConnection: Int = 256,
                send: @escaping @Sendable (HCIPacket) -> Void,
                onQueueDrained: @escaping @Sendable (UInt16) -> Void = { _ in }) {
        self.maxQueuedPDUsPerConnection = maxQueuedPDUsPerConnection
        self.send = send
        self.drainedHandler = Mutex(onQueueDrained)
    }

    /// Replaces the drained callback; the layer that owns queued values (the notification engine)
    /// installs it after the host created the flow controller.
    public func setQueueDrainedHandler(_ handler: @escaping @Sendable (UInt16) -> Void) {
        drainedHandler.withLock { $0 = handler }
    }

    private func onQueueDrained(_ handle: UInt16) {
        let handler = drainedHandler.withLock { $0 }
        handler(handle)
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
        let (reclaimed, drained): (Int, [UInt16]) = state.withLock { state in
            guard let connection = state.connections.removeValue(forKey: handle) else { return (0, []) }
            state.inFlight -= connection.inFlight
            state.statistics.creditsReclaimed += connection.inFlight
            if let index = state.order.firstIndex(of: handle) {
                state.order.remove(at: index)
                if state.cursor > index { state.cursor -= 1 }
                if state.cursor >= state.order.count { state.cursor = 0 }
            }
            return (connection.inFlight, pump(&state))
        }
        drained.forEach(onQueueDrained)
        return reclaimed
    }

    /// Queues a complete L2CAP PDU (basic header included) for a connection and sends what credits allow.
    public func enqueue(_ pdu: [UInt8], on handle: UInt16) throws(ACLSendError) {
        guard pdu.count <= ACLReassembler.maximumPDULength else { throw .pduTooLong(pdu.count) }
        let result: Result<[UInt16], ACLSendError> = state.withLock { state in
            guard state.bufferCount > 0 else { return .failure(.notConfigured) }
            guard state.connections[handle] != nil else { return .failure(.unknownConnection(handle)) }
            guard state.connections[handle]!.pendingPDUs < maxQueuedPDUsPerConnection else {
                return .failure(.queueFull(handle: handle, limit: maxQueuedPDUsPerConnection))
            }
            state.connections[handle]!.queue.append(pdu)
            return .success(pump(&state))
        }
        switch result {
        case let .success(drained): drained.forEach(onQueueDrained)
        case let .failure(error): throw error
        }
    }

    /// Applies Number Of Completed Packets. Counts for unknown handles are ignored (the connection
    /// is gone and its credits were already reclaimed); counts above what is in flight are clamped.
    public func completePackets(_ entries: [HCINumberOfCompletedPacketsEvent.Entry]) {
        let drained: [UInt16] = state.withLock { state in
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
        drained.forEach(onQueueDrained)
    }

    public var availableCredits: Int { state.withLock { $0.bufferCount - $0.inFlight } }
    public var packetsInFlight: Int { state.withLock { $0.inFlight } }
    public var statistics: Statistics { state.withLock { $0.statistics } }
    public func packetsInFlight(on handle: UInt16) -> Int { state.withLock { $0.connections[handle]?.inFlight ?? 0 } }
    public func queuedPDUs(on handle: UInt16) -> Int { state.withLock { $0.connections[handle]?.pendingPDUs ?? 0 } }

    /// Sends fragments while credits last, one per connection per turn. Returns connections whose
    /// queue just became empty.
    private func pump(_ state: inout State) -> [UInt16] {
        var drained: [UInt16] = []
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
        let pdu = connection.queue[connection.queueHead]
        let start = connection.headOffset
        let end = min(pdu.count, start + state.bufferSize)
        let boundary: ACLPacketBoundary = start == 0 ? .firstNonFlushable : .continuing
        send(HCIACLPacket.frame(handle: handle, boundary: boundary, fragment: pdu[start..<end]))
        connection.inFlight += 1
        state.inFlight += 1
        state.statistics.packetsSent += 1
        state.statistics.maxInFlight = max(state.statistics.maxInFlight, state.inFlight)
        if end >= pdu.count {
            connection.queueHead += 1
            connection.headOffset = 0
            state.statistics.pdusSent += 1
            // Compact occasionally so the array does not grow without bound.
            if connection.queueHead > 32, connection.queueHead * 2 > connection.queue.count {
                connection.queue.removeFirst(connection.queueHead)
                connection.queueHead = 0
            }
        } else {
            connection.headOffset = end
        }
    }
}
