import HCI

/// Why a link could not be registered in the notification engine.
public enum NotificationEngineError: Error, Equatable, Sendable, CustomStringConvertible {
    case duplicateLink(LinkID)
    case invalidMTU(Int)
    case invalidQueueLimits(entries: Int, bytes: Int)

    public var description: String {
        switch self {
        case let .duplicateLink(link):
            return "\(link) is already registered: remove it before adding it again"
        case let .invalidMTU(mtu):
            return "ATT MTU \(mtu) is invalid: it must be between 23 (the LE minimum) and 65535"
        case let .invalidQueueLimits(entries, bytes):
            return "queue limits of \(entries) entries and \(bytes) bytes are invalid: both must be at least 1"
        }
    }
}
