/// Valid Range descriptor 0x2906 (GATT Specification Supplement; used by ESS and HTS): lower and
/// upper inclusive bounds, each in the format of the characteristic the descriptor belongs to.
public struct ValidRange: Hashable, Sendable {
    public static let uuid: UInt16 = 0x2906

    public let lower: ScalarValue
    public let upper: ScalarValue

    public init(lower: ScalarValue, upper: ScalarValue) throws(SIGEncodingError) {
        guard lower.format == upper.format else {
            throw .outOfRange(field: "valid range", value: "bounds of different formats", allowed: "one format")
        }
        if let low = lower.number, let high = upper.number, low > high {
            throw .outOfRange(field: "valid range lower bound", value: lower.description, allowed: "≤ upper bound \(upper)")
        }
        self.lower = lower
        self.upper = upper
    }

    public init(decoding bytes: [UInt8], format: ScalarFormat) throws(SIGDecodingError) {
        try requireLength(bytes, 2 * format.byteCount, value: "Valid Range for characteristic \(hex(UInt64(format.characteristicUUID), digits: 4))")
        var reader = FieldReader(bytes)
        lower = try format.read(&reader, field: "lower bound")
        upper = try format.read(&reader, field: "upper bound")
        if let low = lower.number, let high = upper.number, low > high {
            throw .outOfRange(field: "lower bound", value: lower.description, allowed: "at most the upper bound \(upper)")
        }
    }

    public var encoded: [UInt8] { lower.encoded + upper.encoded }
}

extension ValidRange: DescribableValue {
    public var fields: [DescribedField] {
        [DescribedField("characteristic", "Characteristic", hex(UInt64(lower.format.characteristicUUID), digits: 4),
                        .string(hex(UInt64(lower.format.characteristicUUID), digits: 4))),
         DescribedField("lower_\(lower.unitKey)", "Lower bound", lower.description, lower.json),
         DescribedField("upper_\(upper.unitKey)", "Upper bound", upper.description, upper.json)]
    }
}
