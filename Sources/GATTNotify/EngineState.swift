/// Everything the engine's mutex protects.
struct EngineState {
    var connections: [ConnectionQueue] = []
    var indexByHandle: [UInt16: Int] = [:]
    /// Round-robin position in `connections`: each turn sends one value of one connection.
    var cursor = 0
    /// A thread is running the pump loop; others only leave work for it.
    var pumping = false
    /// Bumped each time the sink may have room again; a refusal is remembered per generation.
    var sinkGeneration: UInt64 = 0
    var nextConnectionID: UInt64 = 0
    /// Connections with `waitingForRoom` set.
    var waitingConnections = 0
    var readyDue = false
    var waiters: [(id: UInt64, continuation: CheckedContinuation<Bool, Never>)] = []
    var nextWaiterID: UInt64 = 0
    /// Counters of removed connections, kept for the totals.
    var retiredCharacteristics: [UInt16: NotificationStatistics.Counters] = [:]
    var retiredTotals = NotificationStatistics.Counters()

    /// All-or-nothing: queues the value on every listed connection (unknown handles are skipped,
    /// a central may have just disconnected) or, when any of them lacks room, on none.
    mutating func admit(_ value: [UInt8], characteristic: UInt16, policy: UpdatePolicy,
                        to targets: UnsafeBufferPointer<UInt16>) -> Bool {
        var refused = false
        for handle in targets {
            guard let index = indexByHandle[handle] else { continue }
            if case .noRoom = connections[index].admission(of: value, characteristic: characteristic, policy: policy) {
                refused = true
                connections[index].recordRejection(characteristic: characteristic)
                if !connections[index].waitingForRoom {
                    connections[index].waitingForRoom = true
                    waitingConnections += 1
                }
            }
        }
        if refused { return false }
        for handle in targets {
            guard let index = indexByHandle[handle] else { continue }
            let admission = connections[index].admission(of: value, characteristic: characteristic, policy: policy)
            if !connections[index].apply(admission, value: value, characteristic: characteristic) {
                // Only reachable when a merge hook is not deterministic or a handle is listed twice.
                connections[index].recordRejection(characteristic: characteristic)
            }
        }
        return true
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

    mutating func finish(_ transmission: Transmission, accepted: Bool) {
        // The connection may have been removed (or its handle reused) while the sink had the value.
        guard let index = indexByHandle[transmission.handle], connections[index].id == transmission.connectionID else { return }
        connections[index].finish(transmission, accepted: accepted)
        if accepted, connections[index].waitingForRoom, connections[index].hasReadyRoom {
            stopWaiting(at: index)
        }
    }

    mutating func stopWaiting(at index: Int) {
        connections[index].waitingForRoom = false
        waitingConnections -= 1
        if waitingConnections == 0 { readyDue = true }
    }

    /// The ready signal and the async updaters to wake, if room has returned.
    mutating func takeReady() -> (due: Bool, waiters: [CheckedContinuation<Bool, Never>]) {
        guard readyDue else { return (false, []) }
        readyDue = false
        let woken = waiters.map(\.continuation)
        waiters.removeAll()
        return (true, woken)
    }

    mutating func remove(_ handle: UInt16) -> [AbandonedIndication]? {
        guard let index = indexByHandle.removeValue(forKey: handle) else { return nil }
        if connections[index].waitingForRoom { stopWaiting(at: index) }
        let abandoned = connections[index].close()
        retiredTotals.absorb(connections[index].counters)
        for state in connections[index].characteristicStates {
            retiredCharacteristics[state.characteristic, default: NotificationStatistics.Counters()].absorb(state.counters)
        }
        let last = connections.count - 1
        if index != last {
            connections.swapAt(index, last)
            indexByHandle[connections[index].handle] = index
        }
        connections.removeLast()
        if cursor > connections.count { cursor = 0 }
        return abandoned
    }
}
