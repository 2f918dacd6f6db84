/// Heart Rate Measurement 0x2A37 (Heart Rate Service 3.1, GATT Specification Supplement).
/// Layout: flags u8, heart rate u8 or u16, [energy expended u16 kJ], [RR-intervals u16 × n, 1/1024 s].
public struct HeartRateMeasurement: Hashable, Sendable {
    public static let uuid: UInt16 = 0x2A37

    /// Flags bits 1-2. Codes 0 and 1 both mean "not supported"; decoding folds them together.
    public enum SensorContact: UInt8, Hashable, Sendable, CustomStringConvertible {
        case notSupported = 0
        case notDetected = 2
        case detected = 3

        public var description: String {
            switch self {
            case .notSupported: return "not supported"
            case .notDetected: return "supported, not detected"
            case .detected: return "supported, detected"
            }
        }

        var jsonName: String {
            switch self {
            case .notSupported: return "not_supported"
            case .notDetected: return "not_detected"
            case .detected: return "detected"
            }
        }
    }

    enum Flag {
        static let uint16Format: UInt8 = 0x01
        static let contactShift: UInt8 = 1
        static let energyExpended: UInt8 = 0x08
        static let rrIntervals: UInt8 = 0x10
    }

    /// Beats per minute.
    public var heartRate: UInt16
    public var sensorContact: SensorContact
    /// Kilojoules since the last reset. The encoder saturates at 0xFFFF, as the service requires, so a
    /// client can tell the counter needs a reset.
    public var energyExpended: UInt32?
    /// Oldest first, in units of 1/1024 s.
    public var rrIntervals: [UInt16]
    /// Whether the heart rate was (or is to be) sent as uint16 even when it fits in a uint8.
    public var usesUInt16Format: Bool

    public init(heartRate: UInt16, sensorContact: SensorContact = .notSupported, energyExpended: UInt32? = nil,
                rrIntervals: [UInt16] = [], usesUInt16Format: Bool = false) {
        self.heartRate = heartRate
        self.sensorContact = sensorContact
        self.energyExpended = energyExpended
        self.rrIntervals = rrIntervals
        self.usesUInt16Format = usesUInt16Format
    }

    /// RR-intervals in seconds.
    public var rrIntervalSeconds: [Double] { rrIntervals.map { Double($0) / 1024 } }

    public init(decoding bytes: [UInt8]) throws(SIGDecodingError) {
        var reader = FieldReader(bytes)
        let flags = try reader.uint8("flags")
        usesUInt16Format = flags & Flag.uint16Format != 0
        if usesUInt16Format {
            try reader.requireFlagged(2, flag: "heart rate is uint16 (bit 0)", field: "heart rate value")
            heartRate = try reader.uint16("heart rate value")
        } else {
            heartRate = UInt16(try reader.uint8("heart rate value"))
        }
        let contactBits = (flags >> Flag.contactShift) & 0x03
        sensorContact = SensorContact(rawValue: contactBits) ?? .notSupported
        if flags & Flag.energyExpended != 0 {
            try reader.requireFlagged(2, flag: "energy expended present (bit 3)", field: "energy expended")
            energyExpended = UInt32(try reader.uint16("energy expended"))
        } else {
            energyExpended = nil
        }
        if flags & Flag.rrIntervals != 0 {
            try reader.requireFlagged(2, flag: "RR-intervals present (bit 4)", field: "an RR-interval")
            let data = reader.remaining()
            guard data.count % 2 == 0 else { throw .oddRRIntervalBytes(count: data.count) }
            rrIntervals = stride(from: 0, to: data.count, by: 2).map { UInt16(data[$0]) | UInt16(data[$0 + 1]) << 8 }
        } else {
            rrIntervals = []
            try reader.finish(after: energyExpended == nil ? "the heart rate value" : "energy expended")
        }
    }
}

extension HeartRateMeasurement: DescribableValue {
    public var fields: [DescribedField] {
        var result = [
            DescribedField("heart_rate_bpm", "Heart rate", "\(heartRate) bpm", .int(Int(heartRate))),
            DescribedField("value_format", "Value format", usesUInt16Format ? "uint16" : "uint8",
                           .string(usesUInt16Format ? "uint16" : "uint8")),
            DescribedField("sensor_contact", "Sensor contact", sensorContact.description,
                           .string(sensorContact.jsonName)),
        ]
        if let energy = energyExpended {
            let note = energy >= 0xFFFF ? " (saturated: reset energy expended)" : ""
            result.append(DescribedField("energy_expended_kj", "Energy expended", "\(energy) kJ\(note)",
                                         .int(Int(energy))))
        } else {
            result.append(DescribedField("energy_expended_kj", "Energy expended", "not present", .null))
        }
        let milliseconds = rrIntervals.map { decimalText(mantissa: Int64(($0.asMilliseconds * 10).rounded()), exponent: -1) }
        result.append(DescribedField(
            "rr_intervals_1024ths", "RR-intervals (1/1024 s)",
            rrIntervals.isEmpty ? "none" : rrIntervals.map(String.init).joined(separator: ", "),
            .array(rrIntervals.map { .int(Int($0)) })))
        result.append(DescribedField(
            "rr_intervals_ms", "RR-intervals",
            rrIntervals.isEmpty ? "none" : milliseconds.map { "\($0) ms" }.joined(separator: ", "),
            .array(rrIntervals.map { .double(($0.asMilliseconds * 10).rounded() / 10) })))
        return result
    }
}

extension UInt16 {
    fileprivate var asMilliseconds: Double { Double(self) * 1000 / 1024 }
}
