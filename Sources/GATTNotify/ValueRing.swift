/// One value waiting to be sent.
struct QueuedValue {
    var characteristic: UInt16
    var value: [UInt8]
    /// Bytes that will be sent: `value.count` truncated to MTU − 3 when the value was queued.
    var length: Int
}

/// Fixed-capacity FIFO addressed by absolute sequence numbers, so a characteristic can remember
/// where its queued value sits and replace it in place. Storage is allocated once, when the
/// connection is added, so queueing never allocates.
struct ValueRing {
    private var storage: [QueuedValue]
    /// Sequence number of the oldest entry.
    private(set) var head = 0
    /// Sequence number the next appended entry gets.
    private(set) var tail = 0

    init(capacity: Int) {
        storage = Array(repeating: QueuedValue(characteristic: 0, value: [], length: 0), count: max(1, capacity))
    }

    var count: Int { tail - head }
    var isEmpty: Bool { head == tail }
    var isFull: Bool { count == storage.count }

    func contains(_ sequence: Int) -> Bool { sequence >= head && sequence < tail }

    subscript(sequence: Int) -> QueuedValue {
        storage[sequence % storage.count]
    }

    mutating func replace(at sequence: Int, value: [UInt8], length: Int) {
        let slot = sequence % storage.count
        storage[slot].value = value
        storage[slot].length = length
    }

    /// Appends and returns the entry's sequence number; the caller has checked `isFull`.
    mutating func append(_ entry: QueuedValue) -> Int {
        storage[tail % storage.count] = entry
        tail += 1
        return tail - 1
    }

    /// Removes the oldest entry, releasing its value.
    mutating func removeFirst() -> QueuedValue {
        let slot = head % storage.count
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
        for sequence in (head + protected)..<tail {
            let entry = self[sequence]
            if shouldRemove(entry) { removed.append(entry) } else { kept.append(entry) }
        }
        guard !removed.isEmpty else { return [] }
        var sequence = head + protected
        for entry in kept {
            storage[sequence % storage.count] = entry
            sequence += 1
        }
        while sequence < tail {
            storage[sequence % storage.count].value = []
            sequence += 1
        }
        tail = head + protected + kept.count
        return removed
    }

    /// Sequence of the newest entry, past the first `skipping`, that matches.
    func lastSequence(after skipping: Int, where matches: (QueuedValue) -> Bool) -> Int? {
        var sequence = tail - 1
        while sequence >= head + skipping {
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
