import BLECore

/// When to try the broker again: 1 s after the first failure, doubling to a cap (60 s), back to the
/// start once a connection is accepted. Times are on the monotonic clock the caller passes.
public struct ReconnectBackoff: Sendable, Equatable {
    public let initial: Duration
    public let cap: Duration
    public private(set) var delay: Duration

    public init(initial: Duration = .seconds(1), cap: Duration = .seconds(60)) {
        self.initial = initial
        self.cap = cap
        delay = initial
    }

    /// The next attempt after a failure at `now`; each call doubles the following delay.
    public mutating func nextAttempt(after now: MonotonicInstant) -> MonotonicInstant {
        defer { delay = min(delay * 2, cap) }
        return now + delay
    }

    public mutating func reset() { delay = initial }
}
