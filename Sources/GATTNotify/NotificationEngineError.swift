/// Why a connection could not be registered or changed in the notification engine.
public enum NotificationEngineError: Error, Equatable, Sendable, CustomStringConvertible {
    case duplicateConnection(UInt16)
    case unknownConnection(UInt16)
    case invalidMTU(Int)
    case invalidQueueLimits(entries: Int, bytes: Int)

    public var description: String {
        switch self {
        case let .duplicateConnection(handle):
            return "connection 0x\(String(handle, radix: 16)) is already registered: remove it before adding it again"
        case let .unknownConnection(handle):
            return "no connection with handle 0x\(String(handle, radix: 16)) is registered: add it when the link comes up"
        case let .invalidMTU(mtu):
            return "ATT MTU \(mtu) is invalid: it must be between 23 (the LE minimum) and 65535"
        case let .invalidQueueLimits(entries, bytes):
            return "queue limits of \(entries) entries and \(bytes) bytes are invalid: both must be at least 1"
        }
    }
}
