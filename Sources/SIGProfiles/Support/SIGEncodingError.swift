/// Why a value cannot be put on the air in a SIG characteristic format.
public enum SIGEncodingError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A number cannot be expressed in the format at all (too large, too many digits).
    case notRepresentable(value: String, format: String, reason: String)
    /// A field is outside the range the specification allows.
    case outOfRange(field: String, value: String, allowed: String)
    /// Even the mandatory fields do not fit in the space the caller allows (ATT_MTU − 3).
    case doesNotFit(value: String, needed: Int, maxLength: Int)

    public var description: String {
        switch self {
        case let .notRepresentable(value, format, reason):
            return "\(value) cannot be encoded as \(format): \(reason)"
        case let .outOfRange(field, value, allowed):
            return "\(field) \(value) is outside the allowed range \(allowed)"
        case let .doesNotFit(value, needed, maxLength):
            return "\(value) needs at least \(needed) byte(s) but only \(maxLength) are allowed; "
                + "negotiate a larger ATT MTU or drop optional fields"
        }
    }
}
