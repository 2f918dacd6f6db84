import BLECore

/// Date Time 0x2A08 (GATT Specification Supplement): year u16, month, day, hours, minutes, seconds (7 bytes).
/// Year, month and day use 0 for "not known".
public struct DateTime: Hashable, Sendable, CustomStringConvertible {
    public static let byteCount = 7

    public var year: UInt16
    public var month: UInt8
    public var day: UInt8
    public var hours: UInt8
    public var minutes: UInt8
    public var seconds: UInt8

    public init(year: UInt16, month: UInt8, day: UInt8, hours: UInt8, minutes: UInt8, seconds: UInt8) {
        self.year = year
        self.month = month
        self.day = day
        self.hours = hours
        self.minutes = minutes
        self.seconds = seconds
    }

    /// Each field's name and allowed values, checked on decoding and encoding alike.
    private var checks: [(field: String, value: Int, allowed: ClosedRange<Int>, text: String)] {
        [("year", Int(year), 1582...9999, "1582-9999, or 0 for not known"),
         ("month", Int(month), 1...12, "1-12, or 0 for not known"),
         ("day", Int(day), 1...31, "1-31, or 0 for not known"),
         ("hours", Int(hours), 0...23, "0-23"),
         ("minutes", Int(minutes), 0...59, "0-59"),
         ("seconds", Int(seconds), 0...59, "0-59")]
    }

    private func firstInvalidField() -> (field: String, value: Int, text: String)? {
        for (index, check) in checks.enumerated() {
            let mayBeUnknown = index < 3
            if check.allowed.contains(check.value) || (mayBeUnknown && check.value == 0) { continue }
            return (check.field, check.value, check.text)
        }
        return nil
    }

    init(reading reader: inout FieldReader) throws(SIGDecodingError) {
        year = try reader.uint16("time stamp year")
        month = try reader.uint8("time stamp month")
        day = try reader.uint8("time stamp day")
        hours = try reader.uint8("time stamp hours")
        minutes = try reader.uint8("time stamp minutes")
        seconds = try reader.uint8("time stamp seconds")
        if let invalid = firstInvalidField() {
            throw .outOfRange(field: "time stamp \(invalid.field)", value: "\(invalid.value)", allowed: invalid.text)
        }
    }

    func write(to writer: inout ByteWriter) throws(SIGEncodingError) {
        if let invalid = firstInvalidField() {
            throw .outOfRange(field: "time stamp \(invalid.field)", value: "\(invalid.value)", allowed: invalid.text)
        }
        writer.append(year)
        writer.append(month)
        writer.append(day)
        writer.append(hours)
        writer.append(minutes)
        writer.append(seconds)
    }

    /// ISO 8601 style; unknown date parts print as zeros, as sent.
    public var description: String {
        func pad(_ value: Int, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(Int(year), 4))-\(pad(Int(month), 2))-\(pad(Int(day), 2))T"
            + "\(pad(Int(hours), 2)):\(pad(Int(minutes), 2)):\(pad(Int(seconds), 2))"
    }

    var json: JSONValue {
        .object(["year": .int(Int(year)), "month": .int(Int(month)), "day": .int(Int(day)),
                 "hours": .int(Int(hours)), "minutes": .int(Int(minutes)), "seconds": .int(Int(seconds))])
    }
}
