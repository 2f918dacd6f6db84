import HCI

/// Failures of peripheral-role operations, with what the user can do about them.
public enum GAPError: Error, Equatable, Sendable, CustomStringConvertible {
    case advertisingData(AdvertisingDataError)
    case controller(HCIHostError)
    case notStarted
    case linkClosed(LinkID)
    case invalidAdvertisingInterval(milliseconds: Double)

    public var description: String {
        switch self {
        case let .advertisingData(error): return error.description
        case let .controller(error): return error.description
        case .notStarted: return "the peripheral is not started: call start() after the host is up"
        case let .linkClosed(link): return "\(link) is already closed"
        case let .invalidAdvertisingInterval(milliseconds):
            return "advertising interval \(milliseconds) ms is outside 20 ms … 10.24 s"
        }
    }
}
