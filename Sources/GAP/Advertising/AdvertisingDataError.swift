import BLECore

/// Why advertising content cannot be placed or parsed.
public enum AdvertisingDataError: Error, Equatable, Sendable, CustomStringConvertible {
    /// An item is larger than a whole 31-byte legacy packet can hold.
    case doesNotFit(item: String, bytes: Int)
    /// Items that each fit, but not together in the advertising data and the scan response.
    case noRoomLeft(item: String, bytes: Int)
    case malformed(offset: Int, reason: String)

    public var description: String {
        switch self {
        case let .doesNotFit(item, bytes):
            return "\(item) needs \(bytes) bytes but a legacy advertising packet holds at most 31: shorten it"
        case let .noRoomLeft(item, bytes):
            return "no room left for \(item) (\(bytes) bytes) in the advertising data or the scan response: remove something or shorten it"
        case let .malformed(offset, reason):
            return "malformed advertising data at offset \(offset): \(reason)"
        }
    }
}
