/// Measurement Interval 0x2A21 (Health Thermometer Service 3.4): uint16 seconds between measurements;
/// 0 means no periodic measurement.
public struct MeasurementInterval: Hashable, Sendable {
    public static let uuid: UInt16 = 0x2A21

    public var seconds: UInt16

    public init(seconds: UInt16) { self.seconds = seconds }

    public var isPeriodic: Bool { seconds != 0 }

    public init(decoding bytes: [UInt8]) throws(SIGDecodingError) {
        try requireLength(bytes, 2, value: "Measurement Interval")
        var reader = FieldReader(bytes)
        seconds = try reader.uint16("measurement interval")
    }

    public var encoded: [UInt8] { [UInt8(truncatingIfNeeded: seconds), UInt8(truncatingIfNeeded: seconds >> 8)] }

    var text: String { isPeriodic ? "\(seconds) s" : "0 (no periodic measurement)" }
}

extension MeasurementInterval: DescribableValue {
    public var fields: [DescribedField] {
        [DescribedField("interval_s", "Measurement interval", text, .int(Int(seconds))),
         DescribedField("periodic", "Periodic", isPeriodic ? "yes" : "no", .bool(isPeriodic))]
    }
}
