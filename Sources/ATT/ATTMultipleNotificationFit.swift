/// Which leading values fit whole in one Multiple Handle Value Notification: tuples are never
/// truncated, and the PDU is at most ATT_MTU octets with its opcode, which leaves MTU − 1 for the
/// tuples (Core spec v5.4 Vol 3 Part F 3.4.7.4). `ATTPDU.multipleHandleValueNotification(fitting:mtu:)`
/// and the notification engine both decide with this, and `ATTValueFrame` sizes its frame from it.
public struct ATTMultipleNotificationFit: Sendable {
    // Stored as `@usableFromInline` (read through public getters) so `add` can be inlined into the
    // engine's loop in another module.
    /// Octets still free for tuples.
    @usableFromInline var room: Int
    @usableFromInline var fittedCount = 0
    @usableFromInline var fittedLength = 0
    /// A value did not fit: the run has ended.
    @usableFromInline var isClosed = false

    /// Values counted in so far.
    @inlinable public var count: Int { fittedCount }
    /// Octets of the tuples counted in so far (headers and values), the PDU's length after its opcode.
    @inlinable public var tuplesLength: Int { fittedLength }
    /// A PDU carries two or more values (3.4.7.4); with fewer, the first goes as a plain notification.
    @inlinable public var isWorthCombining: Bool { fittedCount >= 2 }

    /// Callers bound `mtu` themselves (the builders clamp it, the engine validates it).
    @inlinable
    public init(mtu: Int) {
        room = mtu - 1
    }

    /// Counts in the next value, of `length` octets, if its whole tuple fits in what is left. False
    /// when it does not, and for every value after that: the run ends there, so a later, smaller value
    /// never overtakes it.
    @inlinable
    public mutating func add(valueLength length: Int) -> Bool {
        let size = ATTValueFrame.tupleHeaderLength + length
        guard !isClosed, size <= room, length <= Int(UInt16.max) else {
            isClosed = true
            return false
        }
        room -= size
        fittedLength += size
        fittedCount += 1
        return true
    }
}
