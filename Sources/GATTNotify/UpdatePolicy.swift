/// Combines a queued, not yet sent value with a newer one.
///
/// - Parameters:
///   - queued: the value waiting in the queue (already truncated to the connection's MTU − 3).
///   - incoming: the new value the application passed to `update`.
///   - maximumLength: MTU − 3 of the connection; a longer result is truncated when sent.
/// - Returns: the merged value that replaces the queued one, or `nil` when the two cannot be combined
///   (for example the merged value would not fit): the incoming value is then queued behind the old
///   one, so nothing is lost.
///
/// Called with the engine's lock held: it must be a pure function of its arguments, must not call
/// back into the engine, and may be called twice for one update (room check, then application).
public typealias MergeHook = @Sendable (_ queued: [UInt8], _ incoming: [UInt8], _ maximumLength: Int) -> [UInt8]?

/// How an update to one characteristic is queued for each connection.
public enum UpdatePolicy: Sendable {
    /// Notification that coalesces: a queued, not yet sent value of the same characteristic is
    /// replaced by the newer one (counted as coalesced). At most one value per characteristic waits.
    case latestValue
    /// Notification that never coalesces: every value is queued in order and sent, as
    /// CoreBluetooth's `updateValue` does; a full queue refuses the update.
    case fifo
    /// Notification whose queued value is combined with the newer one by the hook (for example Heart
    /// Rate Measurement RR-intervals, which must accumulate rather than be lost).
    case merge(MergeHook)
    /// Indication: FIFO, one outstanding per connection until `confirmationReceived`, never dropped
    /// silently (refused with `false` when the queue is full, reported as abandoned on disconnect).
    case indication
}
