/// Pending timers ordered by deadline, then by scheduling order (equal deadlines fire FIFO).
/// Cancelled timers stay until they reach the top or a compaction drops them, so `cancel` is O(1).
struct TimerHeap {
    private struct Entry {
        let deadline: MonotonicInstant
        let sequence: UInt64
        let timer: TimerHandle

        func precedes(_ other: Entry) -> Bool {
            deadline != other.deadline ? deadline < other.deadline : sequence < other.sequence
        }
    }

    private var entries: [Entry] = []
    private var nextSequence: UInt64 = 0
    /// Cancelled timers still stored; a compaction runs when they outnumber the live ones.
    private(set) var cancelledCount = 0

    var isEmpty: Bool { entries.isEmpty }
    var liveCount: Int { entries.count - cancelledCount }

    mutating func insert(_ timer: TimerHandle) {
        nextSequence &+= 1
        entries.append(Entry(deadline: timer.deadline, sequence: nextSequence, timer: timer))
        siftUp(entries.count - 1)
    }

    /// The earliest deadline among timers not cancelled (dropping cancelled ones on top).
    mutating func earliestDeadline() -> MonotonicInstant? {
        dropCancelledTop()
        return entries.first?.deadline
    }

    /// Removes and returns every timer due at `now`, earliest first.
    mutating func popDue(at now: MonotonicInstant) -> [TimerHandle] {
        var due: [TimerHandle] = []
        while let first = entries.first, first.deadline <= now {
            let entry = removeFirst()
            if entry.timer.isPending { due.append(entry.timer) } else { cancelledCount = max(0, cancelledCount - 1) }
        }
        return due
    }

    mutating func noteCancelled() {
        cancelledCount += 1
        if cancelledCount > 64, cancelledCount * 2 > entries.count { compact() }
    }

    private mutating func dropCancelledTop() {
        while let first = entries.first, !first.timer.isPending {
            _ = removeFirst()
            cancelledCount = max(0, cancelledCount - 1)
        }
    }

    private mutating func compact() {
        entries.removeAll { !$0.timer.isPending }
        cancelledCount = 0
        // Heapify bottom-up.
        var index = entries.count / 2
        while index > 0 {
            index -= 1
            siftDown(index)
        }
    }

    private mutating func removeFirst() -> Entry {
        let first = entries[0]
        let last = entries.removeLast()
        if !entries.isEmpty {
            entries[0] = last
            siftDown(0)
        }
        return first
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[child].precedes(entries[parent]) else { return }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < entries.count, entries[left].precedes(entries[smallest]) { smallest = left }
            if right < entries.count, entries[right].precedes(entries[smallest]) { smallest = right }
            if smallest == parent { return }
            entries.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
