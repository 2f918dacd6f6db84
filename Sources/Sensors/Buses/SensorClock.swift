#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Synchronization

/// Monotonic time plus a blocking wait, so drivers with datasheet conversion delays can run
/// against a simulated clock in tests without really waiting.
public protocol SensorClock: Sendable {
    /// Nanoseconds on a monotonic timeline (CLOCK_MONOTONIC for the system clock, the same base
    /// the kernel stamps GPIO edge events with).
    func nowNanoseconds() -> UInt64
    /// Blocks the calling thread for at least `nanoseconds` (a single datasheet delay, never a poll loop).
    func sleep(nanoseconds: UInt64)
}

extension SensorClock {
    /// Non-positive and NaN delays return at once; huge ones saturate instead of trapping.
    public func sleep(milliseconds: Double) {
        guard milliseconds > 0 else { return }
        sleep(nanoseconds: UInt64(saturating: milliseconds * 1_000_000))
    }
}

/// CLOCK_MONOTONIC and clock_nanosleep.
public struct SystemSensorClock: SensorClock {
    public init() {}

    public func nowNanoseconds() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) &* 1_000_000_000 &+ UInt64(spec.tv_nsec)
    }

    public func sleep(nanoseconds: UInt64) {
        // Clamping: time_t is 32 bits on armhf (bookworm).
        var request = timespec(tv_sec: .init(clamping: nanoseconds / 1_000_000_000), tv_nsec: .init(nanoseconds % 1_000_000_000))
        var remaining = timespec()
        // Resume after signals until the whole delay has passed.
        while clock_nanosleep(CLOCK_MONOTONIC, 0, &request, &remaining) == EINTR {
            request = remaining
        }
    }
}

/// A clock that only moves when slept on or advanced, so conversion delays cost no real time.
public final class SimulatedSensorClock: SensorClock {
    private let now: Mutex<UInt64>

    public init(startNanoseconds: UInt64 = 1_000_000_000) {
        now = Mutex(startNanoseconds)
    }

    public func nowNanoseconds() -> UInt64 { now.withLock { $0 } }

    public func sleep(nanoseconds: UInt64) { advance(nanoseconds: nanoseconds) }

    /// Saturates at UInt64.max: a monotonic clock must never wrap back to the past.
    public func advance(nanoseconds: UInt64) { now.withLock { $0 = $0.saturatingAdd(nanoseconds) } }

    /// Negative and NaN durations do not move the clock; huge ones saturate.
    public func advance(milliseconds: Double) {
        guard milliseconds > 0 else { return }
        advance(nanoseconds: UInt64(saturating: milliseconds * 1_000_000))
    }
}
