import CMonotonicTimer

/// A point on a monotonic clock, in nanoseconds since an arbitrary origin. Stored as `Int64` so it
/// never overflows on 32-bit targets (armhf), where `Int` holds only about two seconds of nanoseconds.
public struct MonotonicInstant: Comparable, Hashable, Sendable, CustomStringConvertible {
    public var nanoseconds: Int64

    public init(nanoseconds: Int64) {
        self.nanoseconds = nanoseconds
    }

    /// CLOCK_MONOTONIC now (never jumps with wall-clock changes).
    public static var systemNow: MonotonicInstant { MonotonicInstant(nanoseconds: bls_monotonic_now_ns()) }

    public static func < (lhs: MonotonicInstant, rhs: MonotonicInstant) -> Bool { lhs.nanoseconds < rhs.nanoseconds }

    public static func + (lhs: MonotonicInstant, rhs: Duration) -> MonotonicInstant {
        let delta = rhs.saturatingNanoseconds
        let (sum, overflow) = lhs.nanoseconds.addingReportingOverflow(delta)
        return MonotonicInstant(nanoseconds: overflow ? (delta < 0 ? Int64.min : Int64.max) : sum)
    }

    public static func - (lhs: MonotonicInstant, rhs: MonotonicInstant) -> Duration {
        .nanoseconds(lhs.nanoseconds &- rhs.nanoseconds)
    }

    public var description: String { "\(Double(nanoseconds) / 1e9) s" }
}

extension Duration {
    /// Whole nanoseconds, clamped to the `Int64` range (a `.seconds(Int64.max)` timeout means "never").
    public var saturatingNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds < 0 ? Int64.min : Int64.max }
        let (sum, sumOverflow) = scaled.addingReportingOverflow(attoseconds / 1_000_000_000)
        if sumOverflow { return seconds < 0 ? Int64.min : Int64.max }
        return sum
    }
}
