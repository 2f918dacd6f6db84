/// A JSON value built without Foundation types, so descriptions and JSON come from one field list.
/// Numbers are always finite: special float values are reported as strings.
public indirect enum JSONValue: Hashable, Sendable, Encodable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case let .bool(value): try container.encode(value)
        case let .int(value): try container.encode(value)
        case let .double(value):
            if value.isFinite { try container.encode(value) } else { try container.encodeNil() }
        case let .string(value): try container.encode(value)
        case let .array(values): try container.encode(values)
        case let .object(values): try container.encode(values)
        }
    }
}

/// One decoded field: a stable snake_case JSON key, a human label, its text with units, and its JSON value.
public struct DescribedField: Hashable, Sendable {
    public let key: String
    public let label: String
    public let text: String
    public let json: JSONValue

    public init(_ key: String, _ label: String, _ text: String, _ json: JSONValue) {
        self.key = key
        self.label = label
        self.text = text
        self.json = json
    }
}

/// A decoded SIG value that can list its fields for people and for JSON.
public protocol DescribableValue: Sendable {
    var fields: [DescribedField] { get }
}

func hex(_ value: UInt64, digits: Int) -> String {
    let text = String(value, radix: 16, uppercase: true)
    return "0x" + String(repeating: "0", count: max(0, digits - text.count)) + text
}

/// Formats `mantissa × 10^exponent` exactly, e.g. (366, −1) → "36.6", (-5, −3) → "-0.005", (12, 2) → "1200".
func decimalText(mantissa: Int64, exponent: Int) -> String {
    let negative = mantissa < 0
    var digits = String(mantissa.magnitude)
    if exponent >= 0 {
        if mantissa != 0 { digits += String(repeating: "0", count: exponent) }
    } else {
        let fraction = -exponent
        if digits.count <= fraction {
            digits = String(repeating: "0", count: fraction - digits.count + 1) + digits
        }
        let split = digits.index(digits.endIndex, offsetBy: -fraction)
        digits = digits[..<split] + "." + digits[split...]
    }
    return negative ? "-" + digits : digits
}

/// "Ear Lobe" → "ear_lobe", "Gastro-intestinal Tract" → "gastro_intestinal_tract": stable JSON enum names.
func snakeName(_ text: String) -> String {
    var result = ""
    var pendingSeparator = false
    for character in text.lowercased() {
        if character.isLetter || character.isNumber {
            if pendingSeparator && !result.isEmpty { result.append("_") }
            pendingSeparator = false
            result.append(character)
        } else {
            pendingSeparator = true
        }
    }
    return result
}
