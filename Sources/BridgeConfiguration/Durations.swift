/// Why a duration string was rejected; the description is the user-facing message.
enum DurationProblem: Error, Equatable, CustomStringConvertible {
    case missingUnit(String)
    case notADuration(String)
    case negative(String)
    case tooLong(String)

    var description: String {
        switch self {
        case let .missingUnit(text): return "\(text) has no unit: write \(text)ms, \(text)s, \(text)m or \(text)h"
        case let .notADuration(text): return "'\(text)' is not a duration like 500ms, 2s, 1m or 1h"
        case let .negative(text): return "\(text) is negative; durations are 0 or more"
        case let .tooLong(text): return "\(text) is too long"
        }
    }
}

/// `500ms`, `2s`, `1.5s`, `1m`, `1h`: a plain decimal number and one unit, nothing else.
func parseDuration(_ raw: String) -> Result<Duration, DurationProblem> {
    let text = abbreviated(raw)
    let units: [(suffix: String, nanoseconds: Double)] = [("ms", 1e6), ("s", 1e9), ("m", 60e9), ("h", 3600e9)]
    guard let unit = units.first(where: { raw.hasSuffix($0.suffix) }) else {
        return .failure(parseDecimal(raw) == nil ? .notADuration(text) : .missingUnit(text))
    }
    let number = String(raw.dropLast(unit.suffix.count))
    guard let value = parseDecimal(number), !number.hasPrefix("+") else { return .failure(.notADuration(text)) }
    guard value >= 0 else { return .failure(.negative(text)) }
    let nanoseconds = value * unit.nanoseconds
    // Far beyond any range the sections accept, but still inside Int64 so the conversion cannot trap.
    guard nanoseconds < 1e18 else { return .failure(.tooLong(text)) }
    return .success(.nanoseconds(Int64(nanoseconds.rounded())))
}

/// `250ms`, `1s`, `10.24s`, `1m`, `1h`: the spelling the file would use.
func formatDuration(_ duration: Duration) -> String {
    let (seconds, attoseconds) = duration.components
    let nanoseconds = seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    if nanoseconds % 3_600_000_000_000 == 0, nanoseconds != 0 { return "\(nanoseconds / 3_600_000_000_000)h" }
    if nanoseconds % 60_000_000_000 == 0, nanoseconds != 0 { return "\(nanoseconds / 60_000_000_000)m" }
    if nanoseconds < 1_000_000_000 { return formatNumber(Double(nanoseconds) / 1e6) + "ms" }
    return formatNumber(Double(nanoseconds) / 1e9) + "s"
}
