import HCI

/// The ready signal owed: the links that can take updates now and the async updaters to wake.
typealias Readiness = (links: [LinkID], waiters: [CheckedContinuation<Bool, Never>])

/// Everything the engine's mutex protects.
struct EngineState {
    var connections: [ConnectionQueue] = []
    /// `connections[i].id`, searched linearly: a handful of links per engine, and comparing a few
    /// integers costs less than hashing one on every update.
    private var linkIDs: [LinkID] = []
    /// Round-robin position in `connections`: each turn sends one value of one connection.
    var cursor = 0
    /// A thread is running the pump loop; others only leave work for it.
    var pumping = false
    /// Bumped each time the sink may have room again; a refusal is remembered per generation.
    var sinkGeneration: UInt64 = 0
    /// A link that refused an update has room again, or is gone: the ready signal is owed.
    var readyDue = false
    var waiters: [(id: UInt64, continuation: CheckedContinuation<Bool, Never>)] = []
    var nextWaiterID: UInt64 = 0
    /// Counters of removed connections, kept for the totals.
    var retiredCharacteristics: [UInt16: NotificationStatistics.Counters] = [:]
    var retiredTotals = NotificationStatistics.Counters()

    /// All-or-nothing across both target lists: queues the value on every listed link (unknown links
    /// are skipped, a central may have just disconnected) or, when any of them lacks room, on none.
    mutating func admit(_ value: [UInt8], characteristic: UInt16, policy: UpdatePolicy,
                        to targets: UnsafeBufferPointer<LinkID>,
                        indicating indicated: UnsafeBufferPointer<LinkID>) -> Bool {
        var refused = false
        refuse(value, characteristic: characteristic, policy: policy, targets: targets, refused: &refused)
        refuse(value, characteristic: characteristic, policy: .indication, targets: indicated, refused: &refused)
        if refused { return false }
        apply(value, characteristic: characteristic, policy: policy, targets: targets)
        apply(value, characteristic: characteristic, policy: .indication, targets: indicated)
        return true
    }

    private mutating func refuse(_ value: [UInt8], characteristic: UInt16, policy: UpdatePolicy,
                                 targets: UnsafeBufferPointer<LinkID>, refused: inout Bool) {
        for link in targets {
            guard let index = index(of: link) else { continue }
            if case .noRoom = connections[index].admission(of: value, characteristic: characteristic, policy: policy) {
                refused = true
                connections[index].recordRejection(characteristic: characteristic)
                connections[index].waitingForRoom = true
            }
        }
    }

    private mutating func apply(_ value: [UInt8], characteristic: UInt16, policy: UpdatePolicy,
                                targets: UnsafeBufferPointer<LinkID>) {
        for link in targets {
            guard let index = index(of: link) else { continue }
            let admission = connections[index].admission(of: value, characteristic: characteristic, policy: policy)
            if !connections[index].apply(admission, value: value, characteristic: characteristic) {
                // Only reachable when a merge hook is not deterministic or a link is listed twice.
                connections[index].recordRejection(characteristic: characteristic)
            }
        }
    }

    /// Claims the pump if nobody runs it and returns the first value to send.
    mutating func startPump() -> Transmission? {
        guard !pumping else { return nil }
        pumping = true
        return nextTransmission()
    }

    /// Next value round-robin across connections; releases the pump when there is none.
    mutating func nextTransmission() -> Transmission? {
        let count = connections.count
        var examined = 0
        while examined < count {
            if cursor >= count { cursor = 0 }
            let index = cursor
            cursor += 1
            examined += 1
            if let transmission = connections[index].takeTransmission(generation: sinkGeneration) {
                return transmission
            }
        }
        pumping = false
        return nil
    }

    /// Books the sink's answer; returns the sequence number of an indication it took (its ATT
    /// transaction timer starts now).
    mutating func finish(_ transmission: Transmission, accepted: Bool) -> UInt64? {
        // The link may have been removed while the sink had the value.
        guard let index = index(of: transmission.link.id) else { return nil }
        connections[index].finish(transmission, accepted: accepted)
        if accepted, connections[index].waitingForRoom, connections[index].hasReadyRoom {
            stopWaiting(at: index)
        }
        // An indication confirmed while the sink had it is not outstanding: no timer.
        return accepted && transmission.isIndication && connections[index].outstanding != nil
            ? connections[index].indicationSequence : nil
    }

    mutating func stopWaiting(at index: Int) {
        connections[index].waitingForRoom = false
        readyDue = true
    }

    /// When the ready signal is owed: the links that can be updated now (none of them waiting for
    /// room) and the async updaters to wake.
    mutating func takeReady() -> Readiness? {
        guard readyDue else { return nil }
        readyDue = false
        let woken = waiters.map(\.continuation)
        waiters.removeAll()
        return (connections.filter { !$0.waitingForRoom }.map(\.id), woken)
    }

    func index(of link: LinkID) -> Int? {
        linkIDs.firstIndex(of: link)
    }

    /// Adds a link's queue; false when the link has one already.
    mutating func add(_ queue: ConnectionQueue) -> Bool {
        guard index(of: queue.id) == nil else { return false }
        connections.append(queue)
        linkIDs.append(queue.id)
        return true
    }

    mutating func remove(_ link: LinkID) -> [AbandonedIndication]? {
        guard let index = index(of: link) else { return nil }
        // The refusal it caused is over: whoever waited may retry.
        if connections[index].waitingForRoom { stopWaiting(at: index) }
        let abandoned = connections[index].close()
        retiredTotals.absorb(connections[index].counters)
        for state in connections[index].characteristicStates {
            retiredCharacteristics[state.characteristic, default: NotificationStatistics.Counters()].absorb(state.counters)
        }
        let last = connections.count - 1
        if index != last {
            connections.swapAt(index, last)
            linkIDs.swapAt(index, last)
        }
        connections.removeLast()
        linkIDs.removeLast()
        if cursor > connections.count { cursor = 0 }
        return abandoned
    }
}
