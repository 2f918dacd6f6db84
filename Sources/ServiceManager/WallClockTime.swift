#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A CLOCK_REALTIME reading, formatted without Foundation (the daemon's memory matters).
public struct WallClockTime: Sendable, Equatable {
    public var secondsSinceEpoch: Int64
    public var nanoseconds: Int32

    public init(secondsSinceEpoch: Int64, nanoseconds: Int32) {
        self.secondsSinceEpoch = secondsSinceEpoch
        self.nanoseconds = nanoseconds
    }

    public static func now() -> WallClockTime {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return WallClockTime(secondsSinceEpoch: Int64(time.tv_sec), nanoseconds: Int32(time.tv_nsec))
    }

    /// `2026-11-23T23:45:01.123Z`: ISO 8601, UTC, milliseconds truncated (never rounded up into
    /// the next second).
    public var iso8601: String {
        // Clamping: time_t is 32 bits on armhf (bookworm); past 2038 the text is wrong, never a trap.
        var seconds = time_t(clamping: secondsSinceEpoch)
        var parts = tm()
        guard gmtime_r(&seconds, &parts) != nil else { return "\(secondsSinceEpoch).\(nanoseconds)" }
        let milliseconds = Int(max(0, min(nanoseconds, 999_999_999)) / 1_000_000)
        return pad(Int(parts.tm_year) + 1900, 4) + "-" + pad(Int(parts.tm_mon) + 1, 2) + "-" + pad(Int(parts.tm_mday), 2)
            + "T" + pad(Int(parts.tm_hour), 2) + ":" + pad(Int(parts.tm_min), 2) + ":" + pad(Int(parts.tm_sec), 2)
            + "." + pad(milliseconds, 3) + "Z"
    }

    private func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
