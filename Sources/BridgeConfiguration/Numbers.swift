enum IntegerParse: Equatable {
    case value(Int)
    case tooLarge
    case invalid
}

/// Decimal (`72`, `-3`) or hexadecimal (`0x48`) integers; digits only, so `1e3`, `.nan` and `0x` are invalid.
func parseInteger(_ text: String) -> IntegerParse {
    var body = Substring(text)
    var negative = false
    if body.first == "-" || body.first == "+" {
        negative = body.first == "-"
        body = body.dropFirst()
    }
    var radix = 10
    if body.hasPrefix("0x") || body.hasPrefix("0X") {
        radix = 16
        body = body.dropFirst(2)
    }
    guard !body.isEmpty, body.allSatisfy({ $0.isASCII && $0.isHexDigit && (radix == 16 || $0.isNumber) }) else {
        return .invalid
    }
    guard let magnitude = Int(body, radix: radix) else { return .tooLarge }
    return .value(negative ? -magnitude : magnitude)
}

/// A finite decimal number: `-0.3`, `2`, `101325`, `1.5e3`. Rejects `.nan`, `.inf`, hex floats and
/// anything `Double(_:)` would accept beyond plain decimal notation.
func parseDecimal(_ text: String) -> Double? {
    let scalars = Array(text.unicodeScalars)
    var index = 0
    func digits() -> Int {
        let start = index
        while index < scalars.count, ("0"..."9").contains(scalars[index]) { index += 1 }
        return index - start
    }
    if index < scalars.count, scalars[index] == "-" || scalars[index] == "+" { index += 1 }
    var mantissaDigits = digits()
    if index < scalars.count, scalars[index] == "." {
        index += 1
        mantissaDigits += digits()
    }
    guard mantissaDigits > 0 else { return nil }
    if index < scalars.count, scalars[index] == "e" || scalars[index] == "E" {
        index += 1
        if index < scalars.count, scalars[index] == "-" || scalars[index] == "+" { index += 1 }
        guard digits() > 0 else { return nil }
    }
    guard index == scalars.count, let value = Double(text), value.isFinite else { return nil }
    return value
}

/// `-0.3`, `2`, `101325`: no trailing `.0` for whole numbers.
func formatNumber(_ value: Double) -> String {
    if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
    return String(value)
}

/// `0x48` for I2C addresses and 16-bit identifiers.
func hex(_ value: Int, digits: Int) -> String {
    let text = String(value, radix: 16, uppercase: true)
    return "0x" + String(repeating: "0", count: max(0, digits - text.count)) + text
}
