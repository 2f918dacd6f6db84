/// One value waiting to be sent.
struct QueuedValue {
    var characteristic: UInt16
    var value: [UInt8]
    /// Bytes that will be sent: `value.count` truncated to MTU − 3 when the value was queued.
    var length: Int
}

/// Absolute position in a `ValueRing`. Int64 because it only grows: a 32-bit Int (armhf) would
/// overflow after 2^31 values on one connection.
typealias QueueSequence = Int64

/// Fixed-capacity FIFO addressed by absolute sequence numbers, so a characteristic can remember
/// where its queued value sits and replace it in place. Storage is allocated once, when the
/// connection is added, so queueing never allocates.
struct ValueRing {
    private var storage: [QueuedValue]
    /// Sequence number of the oldest entry.
    private(set) var head: QueueSequence = 0
    /// Sequence number the next appended entry gets.
    private(set) var tail: QueueSequence = 0

    /// `firstSequence` lets tests start past 2^31, where a 32-bit Int would have trapped.
    init(capacity: Int, firstSequence: QueueSequence = 0) {
        storage = Array(repeating: QueuedValue(characteristic: 0, value: [], length: 0), count: max(1, capacity))
        head = firstSequence
        tail = firstSequence
    }

    var count: Int { Int(tail - head) }
    var isEmpty: Bool { head == tail }
    var isFull: Bool { count == storage.count }

    func contains(_ sequence: QueueSequence) -> Bool { sequence >= head && sequence < tail }

    subscript(sequence: QueueSequence) -> QueuedValue {
        storage[slot(of: sequence)]
    }

    private func slot(of sequence: QueueSequence) -> Int { Int(sequence % QueueSequence(storage.count)) }

    mutating func replace(at sequence: QueueSequence, value: [UInt8], length: Int) {
        let slot = slot(of: sequence)
        storage[slot].value = value
        storage[slot].length = length
    }

    /// Appends and returns the entry's sequence number; the caller has checked `isFull`.
    mutating func append(_ entry: QueuedValue) -> QueueSequence {
        storage[slot(of: tail)] = entry
        tail += 1
        return tail - 1
    }

    /// Removes the oldest entry, releasing its value.
    mutating func removeFirst() -> QueuedValue {
        let slot = slot(of: head)
        let entry = storage[slot]
        storage[slot].value = []
        head += 1
        return entry
    }

    /// Removes the entries matching `shouldRemove`, except the first `protected` ones, keeping the
    /// order of the rest (their sequence numbers shift down). Returns the removed entries.
    mutating func remove(keepingFirst protected: Int, where shouldRemove: (QueuedValue) -> Bool) -> [QueuedValue] {
        var kept: [QueuedValue] = []
        var removed: [QueuedValue] = []
        let firstUnprotected = head + QueueSequence(protected)
        for sequence in firstUnprotected..<tail {
            let entry = self[sequence]
            if shouldRemove(entry) { removed.append(entry) } else { kept.append(entry) }
        }
        guard !removed.isEmpty else { return [] }
        var sequence = firstUnprotected
        for entry in kept {
            storage[slot(of: sequence)] = entry
            sequence += 1
        }
        while sequence < tail {
            storage[slot(of: sequence)].value = []
            sequence += 1
        }
        tail = firstUnprotected + QueueSequence(kept.count)
        return removed
    }

    /// Sequence of the newest entry, past the first `skipping`, that matches.
    func lastSequence(after skipping: Int, where matches: (QueuedValue) -> Bool) -> QueueSequence? {
        var sequence = tail - 1
        while sequence >= head + QueueSequence(skipping) {
            if matches(self[sequence]) { return sequence }
            sequence -= 1
        }
        return nil
    }

    mutating func removeAll() -> [QueuedValue] {
        var entries: [QueuedValue] = []
        entries.reserveCapacity(count)
        while !isEmpty { entries.append(removeFirst()) }
        return entries
    }
}
