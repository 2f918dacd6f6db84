import BLECore

/// ES Trigger Setting descriptor 0x290D (Environmental Sensing Service 3.1.2.3): a condition code and,
/// depending on it, a u24 time in seconds or a value in the characteristic's format.
public enum ESTriggerSetting: Hashable, Sendable {
    public static let uuid: UInt16 = 0x290D

    public enum Comparison: UInt8, Hashable, Sendable, CaseIterable {
        case lessThan = 0x04, lessThanOrEqual, greaterThan, greaterThanOrEqual, equal, notEqual

        var phrase: String {
            switch self {
            case .lessThan: return "while less than"
            case .lessThanOrEqual: return "while less than or equal to"
            case .greaterThan: return "while greater than"
            case .greaterThanOrEqual: return "while greater than or equal to"
            case .equal: return "while equal to"
            case .notEqual: return "while not equal to"
            }
        }
    }

    /// 0x00: no notifications from this trigger.
    case inactive
    /// 0x01: notify at a fixed interval of this many seconds.
    case fixedInterval(seconds: UInt32)
    /// 0x02: notify no more often than every this many seconds.
    case noLessThan(seconds: UInt32)
    /// 0x03: notify when the value changes.
    case valueChanged
    /// 0x04-0x09: notify while the value compares so to the operand.
    case comparison(Comparison, ScalarValue)

    public var condition: UInt8 {
        switch self {
        case .inactive: return 0x00
        case .fixedInterval: return 0x01
        case .noLessThan: return 0x02
        case .valueChanged: return 0x03
        case let .comparison(comparison, _): return comparison.rawValue
        }
    }

    public init(decoding bytes: [UInt8], format: ScalarFormat) throws(SIGDecodingError) {
        var reader = FieldReader(bytes)
        let condition = try reader.uint8("condition")
        switch condition {
        case 0x00:
            self = .inactive
        case 0x01:
            self = .fixedInterval(seconds: try reader.uint24("time interval operand"))
        case 0x02:
            self = .noLessThan(seconds: try reader.uint24("time interval operand"))
        case 0x03:
            self = .valueChanged
        default:
            guard let comparison = Comparison(rawValue: condition) else {
                throw .reservedValue(field: "condition", value: hex(UInt64(condition), digits: 2), allowed: "0x00-0x09")
            }
            self = .comparison(comparison, try format.read(&reader, field: "comparison operand"))
        }
        try reader.finish(after: "the operand of condition \(hex(UInt64(condition), digits: 2))")
    }

    public func encoded() throws(SIGEncodingError) -> [UInt8] {
        var writer = ByteWriter(capacity: 5)
        writer.append(condition)
        switch self {
        case .inactive, .valueChanged:
            break
        case let .fixedInterval(seconds), let .noLessThan(seconds):
            guard seconds <= 0xFF_FFFF else {
                throw .outOfRange(field: "trigger time interval", value: "\(seconds) s", allowed: "0...16777215 s")
            }
            writer.appendUInt24(seconds)
        case let .comparison(_, value):
            writer.append(contentsOf: value.encoded)
        }
        return writer.bytes
    }
}

extension ESTriggerSetting: DescribableValue {
    public var fields: [DescribedField] {
        let code = DescribedField("condition_code", "Condition code", hex(UInt64(condition), digits: 2), .int(Int(condition)))
        switch self {
        case .inactive:
            return [DescribedField("condition", "Condition", "trigger inactive", .string("inactive")), code]
        case let .fixedInterval(seconds):
            return [DescribedField("condition", "Condition", "fixed time interval", .string("fixed_interval")), code,
                    DescribedField("interval_s", "Interval", "\(seconds) s", .int(Int(seconds)))]
        case let .noLessThan(seconds):
            return [DescribedField("condition", "Condition", "no less than the interval between transmissions",
                                   .string("no_less_than_interval")), code,
                    DescribedField("interval_s", "Interval", "\(seconds) s", .int(Int(seconds)))]
        case .valueChanged:
            return [DescribedField("condition", "Condition", "when the value changes", .string("value_changed")), code]
        case let .comparison(comparison, value):
            return [DescribedField("condition", "Condition", comparison.phrase, .string(snakeName(comparison.phrase))), code,
                    DescribedField("operand_\(value.unitKey)", "Operand", value.description, value.json)]
        }
    }
}
