/// What an IEEE 11073-20601 SFLOAT or FLOAT carries: a decimal number or one of the special values
/// a sensor uses to report that it has no valid reading. Specials are kept distinct from numbers so
/// a sensor fault is never shown as a plausible measurement.
public enum MedicalFloatValue: Hashable, Sendable, CustomStringConvertible {
    /// `mantissa × 10^exponent`.
    case number(mantissa: Int32, exponent: Int8)
    /// Not a Number: the sensor has no valid value.
    case nan
    /// Not at this Resolution: the value cannot be expressed in the format's precision.
    case nres
    case positiveInfinity
    case negativeInfinity
    /// A code reserved for future use by IEEE 11073-20601.
    case reserved

    /// The number, or `nil` for NaN, NRes and reserved. Infinities map to `±Double.infinity`.
    public var doubleValue: Double? {
        switch self {
        case let .number(mantissa, exponent):
            // Dividing by an exact power of ten gives the double nearest the decimal value (36.6, not 36.600000000000001).
            let scale = pow10(Int(exponent.magnitude))
            return exponent < 0 ? Double(mantissa) / scale : Double(mantissa) * scale
        case .positiveInfinity: return .infinity
        case .negativeInfinity: return -.infinity
        case .nan, .nres, .reserved: return nil
        }
    }

    /// True when the value is a special code rather than a finite number.
    public var isSpecial: Bool {
        if case .number = self { return false }
        return true
    }

    public var description: String {
        switch self {
        case let .number(mantissa, exponent): return decimalText(mantissa: Int64(mantissa), exponent: Int(exponent))
        case .nan: return "NaN (sensor reports no valid value)"
        case .nres: return "NRes (value not representable at this resolution)"
        case .positiveInfinity: return "+INFINITY"
        case .negativeInfinity: return "-INFINITY"
        case .reserved: return "reserved value (reserved for future use by IEEE 11073-20601)"
        }
    }

    /// Short name for JSON: `nan`, `nres`, `+infinity`, `-infinity`, `reserved`; `nil` for numbers.
    public var specialName: String? {
        switch self {
        case .number: return nil
        case .nan: return "nan"
        case .nres: return "nres"
        case .positiveInfinity: return "+infinity"
        case .negativeInfinity: return "-infinity"
        case .reserved: return "reserved"
        }
    }

    /// Numbers as JSON numbers; special values as their short name, so JSON never holds a wrong number.
    public var json: JSONValue {
        if let name = specialName { return .string(name) }
        return doubleValue.map(JSONValue.double) ?? .null
    }
}

func pow10(_ power: Int) -> Double {
    var result = 1.0
    for _ in 0..<power { result *= 10 }
    return result
}
