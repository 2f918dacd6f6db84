import ATT
import BLECore
import HCI

/// A value the pump is handing to the sink (taken under the lock, sent without it).
struct Transmission {
    var link: Link
    var isIndication: Bool
    /// Non-zero for a Multiple Handle Value Notification carrying the first `combinedCount`
    /// notifications of the queue; `value` is then the finished frame (built under the lock, where the
    /// values are, still one allocation). Sits in padding, so the single-value path copies no more.
    var combinedCount: UInt16 = 0
    var characteristic: UInt16
    var value: [UInt8]
    var length: Int
    /// Sink generation when the value was taken: a refusal only sticks until the sink signals again.
    var generation: UInt64

    /// The L2CAP PDU with `headroom` free bytes in front (see `NotificationSink.headroom`).
    func pdu(headroom: Int) -> [UInt8] {
        if combinedCount > 0 {
            // Combined frames are rare; a copy to add the headroom is acceptable there.
            return headroom == 0 ? value : [UInt8](repeating: 0, count: headroom) + value
        }
        return ATTValueFrame.handleValue(isIndication ? .handleValueIndication : .handleValueNotification,
                                         handle: characteristic, value: value, length: length, headroom: headroom)
    }
}

/// Per characteristic, per connection.
struct CharacteristicQueueState {
    let characteristic: UInt16
    /// Sequence (notification ring) of the newest value that a later update may replace or merge into.
    var coalescible: QueueSequence?
    var queued = 0
    var counters = NotificationStatistics.Counters()
}

/// How one update lands in one connection's queue.
enum Admission {
    /// Coalesce (`merged == false`) or merge into the queued value at `sequence`.
    case replace(sequence: QueueSequence, value: [UInt8], length: Int, merged: Bool)
    case append(length: Int, indication: Bool)
    case noRoom
}

/// One link's queues and counters. Only touched with the engine's lock held.
struct ConnectionQueue {
    let link: Link
    var id: LinkID { link.id }
    /// The link's ATT MTU now: read when a value is admitted (its truncation) and when queued
    /// notifications are combined, so an Exchange MTU applies from the next value on with no relay.
    var mtu: Int { link.mtu }
    let limits: QueueLimits
    var notifications: ValueRing
    var indications: ValueRing
    var queuedBytes = 0
    /// Sent indication awaiting its confirmation.
    var outstanding: QueuedValue?
    /// Counts indications handed to the sink, so a timer armed for one never acts on the next.
    var indicationSequence: UInt64 = 0
    /// The ATT transaction timer of `outstanding`.
    var indicationTimer: TimerHandle?
    /// The head of `indications` (or the first `transmittingNotifications` of `notifications`) is
    /// with the sink right now.
    var transmitting = false
    var transmittingIndication = false
    /// The confirmation of the indication being handed to the sink came before the sink returned
    /// (the transport writes on the caller's thread, and a quick central answers at once).
    var confirmedInFlight = false
    var transmittingNotifications = 0
    /// The client declared support for Multiple Handle Value Notifications (Client Supported Features bit 2).
    var multipleNotifications = false
    /// The sink refused at this generation; retried only after it signals (pump) again.
    var refusedAt: UInt64?
    /// An update was refused for lack of room here and no ready event has been sent yet.
    var waitingForRoom = false
    var counters = NotificationStatistics.Counters()
    /// Per-characteristic state lives in an array reached through a read-only index lookup: the
    /// Dictionary `modify` accessor heap-allocates its coroutine frame, the array's does not.
    private var characteristicSlots: [UInt16: Int] = [:]
    private(set) var characteristicStates: [CharacteristicQueueState] = []

    init(link: Link, limits: QueueLimits) {
        self.link = link
        self.limits = limits
        notifications = ValueRing(capacity: limits.maximumEntries)
        indications = ValueRing(capacity: limits.maximumEntries)
    }

    var entries: Int { notifications.count + indications.count }

    /// Index of the characteristic's state, created on first use.
    private mutating func slot(of characteristic: UInt16) -> Int {
        if let index = characteristicSlots[characteristic] { return index }
        characteristicSlots[characteristic] = characteristicStates.count
        characteristicStates.append(CharacteristicQueueState(characteristic: characteristic))
        return characteristicStates.count - 1
    }
    var maximumValueLength: Int { ATTValueFrame.maximumValueLength(mtu: mtu) }

    /// Room to tell the application to resume: half the queue free, so ready/refused does not
    /// alternate on every single freed slot.
    var hasReadyRoom: Bool {
        entries * 2 <= limits.maximumEntries && queuedBytes * 2 <= limits.maximumBytes
    }

    private func fits(entries newEntries: Int, bytes newBytes: Int) -> Bool {
        newEntries <= limits.maximumEntries && (newBytes <= limits.maximumBytes || newEntries == 1)
    }

    /// Queued value of this characteristic that may still be replaced (not with the sink).
    private func replaceableSequence(of characteristic: UInt16) -> QueueSequence? {
        guard let index = characteristicSlots[characteristic], let sequence = characteristicStates[index].coalescible, notifications.contains(sequence) else { return nil }
        if transmitting, !transmittingIndication, sequence < notifications.head + QueueSequence(transmittingNotifications) { return nil }
        return sequence
    }

    /// How `value` would land in this queue; changes nothing. `mutating` only so callers reach the
    /// queue in place inside the engine's array: a non-mutating call copied the whole struct
    /// (rings, tables, references) on every update, per link.
    mutating func admission(of value: [UInt8], characteristic: UInt16, policy: UpdatePolicy) -> Admission {
        let length = min(value.count, maximumValueLength)
        switch policy {
        case .indication:
            return fits(entries: entries + 1, bytes: queuedBytes + length) ? .append(length: length, indication: true) : .noRoom
        case .fifo:
            break
        case .latestValue:
            if let sequence = replaceableSequence(of: characteristic) {
                let bytes = queuedBytes - notifications[sequence].length + length
                return fits(entries: entries, bytes: bytes)
                    ? .replace(sequence: sequence, value: value, length: length, merged: false) : .noRoom
            }
        case let .merge(hook):
            if let sequence = replaceableSequence(of: characteristic) {
                let queued = notifications[sequence]
                let queuedValue = queued.length == queued.value.count ? queued.value : Array(queued.value.prefix(queued.length))
                if let merged = hook(queuedValue, value, maximumValueLength) {
                    let mergedLength = min(merged.count, maximumValueLength)
                    let bytes = queuedBytes - queued.length + mergedLength
                    return fits(entries: entries, bytes: bytes)
                        ? .replace(sequence: sequence, value: merged, length: mergedLength, merged: true) : .noRoom
                }
            }
        }
        return fits(entries: entries + 1, bytes: queuedBytes + length) ? .append(length: length, indication: false) : .noRoom
    }

    /// Applies an admission computed against the current state. Returns `false` for `.noRoom`.
    mutating func apply(_ admission: Admission, value: [UInt8], characteristic: UInt16) -> Bool {
        switch admission {
        case .noRoom:
            return false
        case let .replace(sequence, newValue, length, merged):
            queuedBytes += length - notifications[sequence].length
            notifications.replace(at: sequence, value: newValue, length: length)
            counters.enqueued += 1
            if merged { counters.merged += 1 } else { counters.coalesced += 1 }
            if length < newValue.count { counters.truncated += 1 }
            characteristicStates[slot(of: characteristic)].recordReplace(merged: merged, truncated: length < newValue.count)
        case let .append(length, indication):
            let entry = QueuedValue(characteristic: characteristic, value: value, length: length)
            let sequence = indication ? indications.append(entry) : notifications.append(entry)
            queuedBytes += length
            counters.enqueued += 1
            if length < value.count { counters.truncated += 1 }
            counters.maximumDepth = max(counters.maximumDepth, entries)
            characteristicStates[slot(of: characteristic)]
                .recordAppend(sequence: indication ? nil : sequence, truncated: length < value.count)
        }
        return true
    }

    mutating func recordRejection(characteristic: UInt16) {
        counters.rejected += 1
        characteristicStates[slot(of: characteristic)].counters.rejected += 1
    }

    /// Takes the next value for the sink: an indication first when none is outstanding (they are
    /// rarer and hold a transaction), otherwise the oldest notification — or, when the client supports
    /// them and more than one fits, the oldest notifications as one Multiple Handle Value Notification.
    mutating func takeTransmission(generation: UInt64) -> Transmission? {
        guard !transmitting, refusedAt != generation else { return nil }
        let isIndication: Bool
        let entry: QueuedValue
        if outstanding == nil, !indications.isEmpty {
            isIndication = true
            entry = indications[indications.head]
        } else if !notifications.isEmpty {
            isIndication = false
            entry = notifications[notifications.head]
            if multipleNotifications, notifications.count > 1, let combined = takeCombined(generation: generation) {
                return combined
            }
        } else {
            return nil
        }
        transmitting = true
        transmittingIndication = isIndication
        transmittingNotifications = isIndication ? 0 : 1
        return Transmission(link: link, isIndication: isIndication, characteristic: entry.characteristic,
                            value: entry.value, length: entry.length, generation: generation)
    }

    /// The leading run of queued notifications that fits whole in MTU − 1 as Multiple Handle Value
    /// Notification tuples, each characteristic at most once; nil when fewer than two do (the head
    /// then goes as a plain notification). A leading run, not a pick from the whole queue, so values
    /// reach the central in exactly the order the single-value path would send them.
    @inline(never) // Keeps the single-value path (which inlines its caller) small.
    private mutating func takeCombined(generation: UInt64) -> Transmission? {
        var fit = ATTMultipleNotificationFit(mtu: mtu)
        let head = notifications.head
        scan: while head + QueueSequence(fit.count) < notifications.tail {
            let candidate = notifications[head + QueueSequence(fit.count)]
            // Runs are short (bounded by the queue's entries and the MTU), so a linear check is cheaper than a set.
            for earlier in head..<(head + QueueSequence(fit.count)) where notifications[earlier].characteristic == candidate.characteristic {
                break scan
            }
            guard fit.add(valueLength: candidate.length) else { break }
        }
        guard fit.isWorthCombining else { return nil }
        let ring = notifications
        let frame = ATTValueFrame.multipleHandleValueNotification(fit) { index in
            let entry = ring[head + QueueSequence(index)]
            return (entry.characteristic, entry.value, entry.length)
        }
        transmitting = true
        transmittingIndication = false
        transmittingNotifications = fit.count
        return Transmission(link: link, isIndication: false, combinedCount: UInt16(clamping: fit.count),
                            characteristic: notifications[head].characteristic, value: frame, length: frame.count,
                            generation: generation)
    }

    mutating func finish(_ transmission: Transmission, accepted: Bool) {
        transmitting = false
        transmittingNotifications = 0
        guard accepted else {
            refusedAt = transmission.generation
            // Never sent, so whatever "confirmed" it was a stray confirmation.
            confirmedInFlight = false
            return
        }
        if transmission.combinedCount > 0 {
            finishCombined(count: Int(transmission.combinedCount))
            return
        }
        let entry: QueuedValue
        let sequence = transmission.isIndication ? indications.head : notifications.head
        if transmission.isIndication {
            entry = indications.removeFirst()
            if confirmedInFlight {
                // Already confirmed: nothing to wait for.
                confirmedInFlight = false
            } else {
                outstanding = entry
                indicationSequence &+= 1
            }
        } else {
            entry = notifications.removeFirst()
        }
        let index = slot(of: entry.characteristic)
        if !transmission.isIndication, characteristicStates[index].coalescible == sequence {
            characteristicStates[index].coalescible = nil
        }
        queuedBytes -= entry.length
        counters.sent += 1
        characteristicStates[index].recordSent()
    }

    /// The sink took a Multiple Handle Value Notification: its values leave the queue, each counted as sent.
    @inline(never)
    private mutating func finishCombined(count: Int) {
        for _ in 0..<count {
            let sequence = notifications.head
            let entry = notifications.removeFirst()
            let index = slot(of: entry.characteristic)
            if characteristicStates[index].coalescible == sequence {
                characteristicStates[index].coalescible = nil
            }
            queuedBytes -= entry.length
            counters.sent += 1
            counters.multipleNotificationValues += 1
            characteristicStates[index].recordSent()
            characteristicStates[index].counters.multipleNotificationValues += 1
            characteristicStates[index].counters.multipleNotificationPDUs += 1
        }
        counters.multipleNotificationPDUs += 1
    }

    /// A Handle Value Confirmation: completes the outstanding indication, or the one the sink is
    /// taking right now. Returns the confirmed value handle, or nil when no indication is either.
    mutating func confirm() -> UInt16? {
        if let confirmed = outstanding {
            outstanding = nil
            recordConfirmation(of: confirmed.characteristic)
            return confirmed.characteristic
        }
        guard transmitting, transmittingIndication, !confirmedInFlight, !indications.isEmpty else { return nil }
        confirmedInFlight = true
        let characteristic = indications[indications.head].characteristic
        recordConfirmation(of: characteristic)
        return characteristic
    }

    mutating func recordConfirmation(of characteristic: UInt16) {
        counters.confirmed += 1
        characteristicStates[slot(of: characteristic)].counters.confirmed += 1
    }

    /// Empties the queues for a disconnection and returns the indications that will never be confirmed.
    mutating func close() -> [AbandonedIndication] {
        indicationTimer?.cancel()
        indicationTimer = nil
        var abandoned: [AbandonedIndication] = []
        if let sent = outstanding {
            abandoned.append(AbandonedIndication(characteristic: sent.characteristic, value: Array(sent.value.prefix(sent.length)), wasSent: true))
            counters.unconfirmed += 1
            characteristicStates[slot(of: sent.characteristic)].counters.unconfirmed += 1
            outstanding = nil
        }
        for entry in indications.removeAll() {
            abandoned.append(AbandonedIndication(characteristic: entry.characteristic, value: Array(entry.value.prefix(entry.length)), wasSent: false))
            counters.abandoned += 1
            characteristicStates[slot(of: entry.characteristic)].dequeued(\.abandoned)
        }
        for entry in notifications.removeAll() {
            counters.dropped += 1
            characteristicStates[slot(of: entry.characteristic)].dequeued(\.dropped)
        }
        queuedBytes = 0
        return abandoned
    }
}

extension ConnectionQueue {
    /// Discards queued values of `characteristic` (notifications, indications or both) that are not
    /// with the sink right now; returns the indications discarded.
    mutating func purge(_ characteristic: UInt16, notifications purgeNotifications: Bool,
                        indications purgeIndications: Bool) -> [AbandonedIndication] {
        guard let slot = characteristicSlots[characteristic] else { return [] }
        var abandoned: [AbandonedIndication] = []
        var removed = 0
        if purgeNotifications {
            let protected = transmitting && !transmittingIndication ? transmittingNotifications : 0
            let first = notifications.head + QueueSequence(protected)
            let removedSequences = (first..<notifications.tail).filter { notifications[$0].characteristic == characteristic }
            for entry in notifications.remove(keepingFirst: protected, where: { $0.characteristic == characteristic }) {
                queuedBytes -= entry.length
                removed += 1
            }
            // Later values moved down over the removed ones: every other characteristic's newest
            // value keeps being found where it now is, so a later update replaces its own value.
            for index in characteristicStates.indices where index != slot {
                guard let sequence = characteristicStates[index].coalescible, sequence >= first else { continue }
                characteristicStates[index].coalescible = sequence - QueueSequence(removedSequences.count { $0 < sequence })
            }
            // Find the value a later update of this characteristic may replace again.
            characteristicStates[slot].coalescible = notifications.lastSequence(after: protected) { $0.characteristic == characteristic }
        }
        if purgeIndications {
            let protected = transmitting && transmittingIndication ? 1 : 0
            for entry in indications.remove(keepingFirst: protected, where: { $0.characteristic == characteristic }) {
                queuedBytes -= entry.length
                removed += 1
                abandoned.append(AbandonedIndication(characteristic: characteristic, value: Array(entry.value.prefix(entry.length)), wasSent: false))
            }
        }
        counters.purged += Int64(removed)
        characteristicStates[slot].counters.purged += Int64(removed)
        characteristicStates[slot].queued -= removed
        return abandoned
    }

    /// Whether an update of `length` octets of `characteristic` would be admitted now (`mutating`:
    /// see `admission`).
    mutating func hasRoom(for length: Int, characteristic: UInt16, policy: UpdatePolicy) -> Bool {
        if case .noRoom = admission(of: [UInt8](repeating: 0, count: min(length, maximumValueLength)), characteristic: characteristic, policy: policy) {
            return false
        }
        return true
    }
}

extension CharacteristicQueueState {
    mutating func recordReplace(merged: Bool, truncated: Bool) {
        counters.enqueued += 1
        if merged { counters.merged += 1 } else { counters.coalesced += 1 }
        if truncated { counters.truncated += 1 }
    }

    mutating func recordAppend(sequence: QueueSequence?, truncated: Bool) {
        counters.enqueued += 1
        if truncated { counters.truncated += 1 }
        if let sequence { coalescible = sequence }
        queued += 1
        counters.maximumDepth = max(counters.maximumDepth, queued)
    }

    mutating func recordSent() {
        counters.sent += 1
        queued -= 1
    }

    mutating func dequeued(_ counter: WritableKeyPath<NotificationStatistics.Counters, Int64>) {
        counters[keyPath: counter] += 1
        queued -= 1
        coalescible = nil
    }
}

// MARK: - The ring of values each queue keeps

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
