import ATT
import BLECore
import GATT
import GATTServer
import HCI

/// Identifies one read request or one write batch; answered exactly once.
public struct ATTRequestID: Hashable, Sendable, CustomStringConvertible {
    let value: UInt64
    public var description: String { "#\(value)" }
}

/// A central reads a dynamic value. Answer with `PeripheralManager.respond(to:with:)`.
public struct ReadRequest: Sendable, Equatable {
    public let id: ATTRequestID
    public let central: ConnectedCentral
    public let characteristic: CharacteristicID
    /// Set when a dynamic descriptor is read rather than the characteristic value.
    public let descriptor: BluetoothUUID?
}

/// One write within a batch.
public struct WriteRequest: Sendable, Equatable {
    public let characteristic: CharacteristicID
    public let descriptor: BluetoothUUID?
    /// The complete new value (prepared writes arrive assembled).
    public let value: [UInt8]
}

/// Writes that must be answered once, as a whole (like CoreBluetooth's `didReceiveWrite`).
/// Writes without response need no answer (`needsResponse == false`).
public struct WriteBatch: Sendable, Equatable {
    public let id: ATTRequestID
    public let central: ConnectedCentral
    public let requests: [WriteRequest]
    public let kind: GATTWriteKind

    public var needsResponse: Bool { kind == .request || kind == .preparedExecution }
}

/// Why `respond` could not deliver an answer. Reported, never a crash: it is the application's bug.
public enum RespondError: Error, Equatable, Sendable, CustomStringConvertible {
    case alreadyAnswered(ATTRequestID)
    /// The deadline passed; the central already got Unlikely Error.
    case expired(ATTRequestID)
    case unknownRequest(ATTRequestID)

    public var description: String {
        switch self {
        case let .alreadyAnswered(id): return "request \(id) was already answered: respond exactly once per request"
        case let .expired(id): return "request \(id) was not answered before its deadline and has already been failed"
        case let .unknownRequest(id): return "request \(id) is unknown (its central disconnected, or it never existed)"
        }
    }
}
