/// Body Sensor Location 0x2A38 (Heart Rate Service 3.2): one uint8, 0-6 defined.
public enum BodySensorLocation: UInt8, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    public static let uuid: UInt16 = 0x2A38

    case other = 0
    case chest = 1
    case wrist = 2
    case finger = 3
    case hand = 4
    case earLobe = 5
    case foot = 6

    public init(decoding bytes: [UInt8]) throws(SIGDecodingError) {
        try requireLength(bytes, 1, value: "Body Sensor Location")
        guard let location = BodySensorLocation(rawValue: bytes[0]) else {
            throw .reservedValue(field: "body sensor location", value: "\(bytes[0])", allowed: "0-6")
        }
        self = location
    }

    public var encoded: [UInt8] { [rawValue] }

    public var description: String {
        switch self {
        case .other: return "Other"
        case .chest: return "Chest"
        case .wrist: return "Wrist"
        case .finger: return "Finger"
        case .hand: return "Hand"
        case .earLobe: return "Ear Lobe"
        case .foot: return "Foot"
        }
    }
}

extension BodySensorLocation: DescribableValue {
    public var fields: [DescribedField] {
        [DescribedField("location", "Location", "\(description) (\(rawValue))",
                        .string(snakeName(description))),
         DescribedField("code", "Code", "\(rawValue)", .int(Int(rawValue)))]
    }
}
