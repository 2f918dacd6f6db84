import HCI

/// A snapshot of the engine's counters, for the daemon's status output.
///
/// For every link and characteristic:
/// `enqueued == sent + coalesced + merged + dropped + abandoned + purged + (entries still queued)`.
public struct NotificationStatistics: Sendable, Equatable {
    /// Event counts are Int64: on armhf a 32-bit Int would overflow (and trap) after 2^31 values,
    /// about twelve days of a 2 kHz stream.
    public struct Counters: Sendable, Equatable {
        /// Values accepted into a queue (one per update per connection).
        public var enqueued: Int64 = 0
        /// Values the sink accepted: one per Handle Value Notification or Indication, and one per
        /// value carried in a Multiple Handle Value Notification.
        public var sent: Int64 = 0
        /// Queued values replaced by a newer one before being sent (`.latestValue`).
        public var coalesced: Int64 = 0
        /// Incoming values folded into a queued one by a merge hook.
        public var merged: Int64 = 0
        /// Updates refused because this queue had no room (nothing was queued).
        public var rejected: Int64 = 0
        /// Queued notifications discarded when the connection was removed.
        public var dropped: Int64 = 0
        /// Queued, never sent indications discarded when the connection was removed.
        public var abandoned: Int64 = 0
        /// Queued values discarded because the client turned the subscription off, or the
        /// characteristic was removed from the database.
        public var purged: Int64 = 0
        /// Indications sent but not confirmed when the connection was removed.
        public var unconfirmed: Int64 = 0
        /// Indications confirmed by the central.
        public var confirmed: Int64 = 0
        /// Values longer than MTU − 3, sent truncated.
        public var truncated: Int64 = 0
        /// Largest number of entries queued at once.
        public var maximumDepth = 0
        /// Multiple Handle Value Notification PDUs the sink accepted (per characteristic: those that
        /// carried one of its values, so it equals `multipleNotificationValues` there).
        public var multipleNotificationPDUs: Int64 = 0
        /// Values sent inside Multiple Handle Value Notifications (also counted in `sent`).
        public var multipleNotificationValues: Int64 = 0

        public init() {}

        mutating func absorb(_ other: Counters) {
            enqueued += other.enqueued
            sent += other.sent
            coalesced += other.coalesced
            merged += other.merged
            rejected += other.rejected
            dropped += other.dropped
            abandoned += other.abandoned
            purged += other.purged
            unconfirmed += other.unconfirmed
            confirmed += other.confirmed
            truncated += other.truncated
            maximumDepth = max(maximumDepth, other.maximumDepth)
            multipleNotificationPDUs += other.multipleNotificationPDUs
            multipleNotificationValues += other.multipleNotificationValues
        }
    }

    public struct Connection: Sendable, Equatable {
        public var link: LinkID
        public var handle: UInt16
        public var mtu: Int
        public var counters: Counters
        /// Counters of each characteristic on this connection.
        public var characteristics: [UInt16: Counters]
        public var queuedEntries: Int
        public var queuedBytes: Int
        public var indicationOutstanding: Bool
        /// Credits this connection holds in the controller, as the sink reports them.
        public var packetsInFlight: Int
        /// Queued notifications may leave combined in Multiple Handle Value Notifications.
        public var multipleNotificationsEnabled: Bool
    }

    public var connections: [LinkID: Connection] = [:]
    /// Per characteristic across all connections, including removed ones.
    public var characteristics: [UInt16: Counters] = [:]
    /// Everything, including removed connections.
    public var totals = Counters()
}
