import Foundation
import SIGProfiles

/// Local time of day for Temperature Measurement time stamps: a measurement forwarded to a central
/// after a disconnection still says when it was taken. Nil when the clock gives no valid date.
enum WallClockTimeStamp {
    static func now() -> DateTime? {
        let parts = Calendar.current.dateComponents([.year, .month, .day, .hour, .minute, .second], from: Date())
        guard let year = parts.year, let month = parts.month, let day = parts.day, let hour = parts.hour,
              let minute = parts.minute, let second = parts.second, (1582...9999).contains(year) else { return nil }
        // A leap second (60) is not representable; the last valid second stands in for it.
        return DateTime(year: UInt16(year), month: UInt8(month), day: UInt8(day), hours: UInt8(hour),
                        minutes: UInt8(minute), seconds: UInt8(min(second, 59)))
    }
}
