/// Why bytes read from a peer are not a valid value of a SIG characteristic or descriptor.
/// Every message names the field and the byte counts so a user can compare with the specification.
public enum SIGDecodingError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A mandatory field is cut short.
    case truncated(field: String, needed: Int, available: Int)
    /// The flags announce an optional field that the value does not carry in full.
    case flaggedFieldMissing(flag: String, field: String, needed: Int, available: Int)
    /// RR-intervals are 16-bit each, so their bytes must come in pairs.
    case oddRRIntervalBytes(count: Int)
    /// Bytes remain after the last field the format defines.
    case trailingBytes(count: Int, after: String)
    /// A fixed-size value has the wrong total length.
    case wrongLength(value: String, expected: Int, actual: Int)
    /// A field holds a number outside the range the specification allows.
    case outOfRange(field: String, value: String, allowed: String)
    /// A field holds a code the specification reserves for future use.
    case reservedValue(field: String, value: String, allowed: String)
    /// A text characteristic is not valid UTF-8.
    case invalidUTF8(value: String)
    /// The value's format depends on the characteristic the descriptor belongs to.
    case characteristicContextRequired(descriptor: String, supported: [String])
    /// The characteristic given as context is not one whose format this descriptor can take.
    case unsupportedContext(descriptor: String, characteristic: String, supported: [String])
    /// A control point write the profile rejects; carries the ATT error to answer with.
    case controlPointRejected(HeartRateControlPointError)
    /// No decoder exists for the UUID.
    case unsupportedUUID(uuid: String, supported: [String])

    public var description: String {
        switch self {
        case let .truncated(field, needed, available):
            return "\(field) needs \(needed) byte(s) but only \(available) remain; the value is truncated"
        case let .flaggedFieldMissing(flag, field, needed, available):
            return "flags say \(flag) but only \(available) byte(s) remain (\(field) needs \(needed))"
        case let .oddRRIntervalBytes(count):
            return "RR-interval data has an odd number of bytes (\(count)); each RR-interval is 2 bytes"
        case let .trailingBytes(count, after):
            return "\(count) unexpected byte(s) after \(after); check the flags or the value length"
        case let .wrongLength(value, expected, actual):
            return "\(value) is \(expected) byte(s) long but \(actual) byte(s) were given"
        case let .outOfRange(field, value, allowed):
            return "\(field) is \(value), outside the allowed range \(allowed)"
        case let .reservedValue(field, value, allowed):
            return "\(field) is \(value), a value reserved for future use (defined: \(allowed))"
        case let .invalidUTF8(value):
            return "\(value) is not valid UTF-8 text"
        case let .characteristicContextRequired(descriptor, supported):
            return "\(descriptor) takes its format from its characteristic; give the characteristic UUID "
                + "(one of \(supported.joined(separator: ", ")))"
        case let .unsupportedContext(descriptor, characteristic, supported):
            return "\(descriptor) cannot be decoded for characteristic \(characteristic); "
                + "supported characteristics: \(supported.joined(separator: ", "))"
        case let .controlPointRejected(error):
            return error.description
        case let .unsupportedUUID(uuid, supported):
            return "no decoder for UUID \(uuid); supported UUIDs: \(supported.joined(separator: ", "))"
        }
    }
}
