import BLECore
import HCI

/// Failures of GAP operations (both roles), with what the user can do about them.
public enum GAPError: Error, Equatable, Sendable, CustomStringConvertible {
    case advertisingData(AdvertisingDataError)
    case controller(HCIHostError)
    case notStarted
    case linkClosed(LinkID)
    case invalidAdvertisingInterval(milliseconds: Double)
    /// Scan parameters outside what the spec allows (Vol 4 Part E 7.8.10).
    case invalidScanParameters(String)
    /// The controller has one initiator: a second `connect` while one is under way is refused.
    case connectionInProgress(DeviceAddress)
    /// No connection within the timeout; the attempt was cancelled.
    case connectionTimeout(DeviceAddress, milliseconds: Int64)
    /// The task that called `connect` was cancelled; so was the attempt.
    case connectionCancelled(DeviceAddress)
    /// The controller reported the connection failed (LE Connection Complete status).
    case connectionFailed(DeviceAddress, HCIStatus)
    /// An operation of the central role on a link where we are the peripheral (or the reverse).
    case wrongRole(LinkID, expected: HCIRole)
    case invalidKeyLength(Int)

    public var description: String {
        switch self {
        case let .advertisingData(error): return error.description
        case let .controller(error): return error.description
        case .notStarted: return "GAP is not started: call start() after the host is up"
        case let .linkClosed(link): return "\(link) is already closed"
        case let .invalidAdvertisingInterval(milliseconds):
            return "advertising interval \(milliseconds) ms is outside 20 ms … 10.24 s"
        case let .invalidScanParameters(reason):
            return "invalid scan parameters: \(reason)"
        case let .connectionInProgress(peer):
            return "a connection to \(peer) is already being made: wait for it to finish or cancel it"
        case let .connectionTimeout(peer, milliseconds):
            return "\(peer) did not connect within \(milliseconds) ms: is it advertising connectably and in range?"
        case let .connectionCancelled(peer):
            return "the connection attempt to \(peer) was cancelled"
        case let .connectionFailed(peer, status):
            return "connecting to \(peer) failed: \(status)"
        case let .wrongRole(link, expected):
            return "\(link): this needs the local \(expected) role on the link"
        case let .invalidKeyLength(count):
            return "a long term key has 16 bytes, not \(count)"
        }
    }
}
