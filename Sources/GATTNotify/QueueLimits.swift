/// Capacity of one connection's notification queue. Both bounds apply; an empty queue always
/// accepts one value, so a value larger than `maximumBytes` is still sent rather than refused forever.
public struct QueueLimits: Sendable, Equatable {
    public let maximumEntries: Int
    public let maximumBytes: Int

    /// 32 values and 8 KiB: a few characteristics' worth of full-MTU (247) values per central.
    public static let standard = QueueLimits(validatedEntries: 32, bytes: 8192)

    public init(maximumEntries: Int, maximumBytes: Int) throws(NotificationEngineError) {
        guard maximumEntries >= 1, maximumBytes >= 1 else {
            throw .invalidQueueLimits(entries: maximumEntries, bytes: maximumBytes)
        }
        self.init(validatedEntries: maximumEntries, bytes: maximumBytes)
    }

    private init(validatedEntries: Int, bytes: Int) {
        maximumEntries = validatedEntries
        maximumBytes = bytes
    }
}
