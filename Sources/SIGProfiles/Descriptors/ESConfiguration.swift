/// ES Configuration descriptor 0x290B (Environmental Sensing Service 3.1.2.4): how several ES Trigger
/// Settings combine, uint8 0x00 = AND, 0x01 = OR.
public enum ESConfiguration: UInt8, Hashable, Sendable {
    public static let uuid: UInt16 = 0x290B

    case booleanAnd = 0x00
    case booleanOr = 0x01

    public init(decoding bytes: [UInt8]) throws(SIGDecodingError) {
        try requireLength(bytes, 1, value: "ES Configuration descriptor")
        guard let value = ESConfiguration(rawValue: bytes[0]) else {
            throw .reservedValue(field: "trigger logic", value: hex(UInt64(bytes[0]), digits: 2),
                                 allowed: "0x00 (AND), 0x01 (OR)")
        }
        self = value
    }

    public var encoded: [UInt8] { [rawValue] }
}

extension ESConfiguration: DescribableValue {
    public var fields: [DescribedField] {
        [DescribedField("trigger_logic", "Trigger logic", self == .booleanAnd ? "Boolean AND" : "Boolean OR",
                        .string(self == .booleanAnd ? "and" : "or"))]
    }
}
