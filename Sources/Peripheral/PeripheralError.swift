import BLECore
import GAP
import GATT
import Bonding
import HCI
import Host

/// Failures of the peripheral API, each with what to do.
public enum PeripheralError: Error, Equatable, Sendable, CustomStringConvertible {
    case database(GATTDatabaseError)
    case alreadyPublished
    case notPublished
    case notPoweredOn(PeripheralState)
    case controller(HCIHostError)
    case advertising(GAPError)
    case unknownCharacteristic(CharacteristicID)
    case unknownService(BluetoothUUID)
    case builtInServiceNotRemovable(BluetoothUUID)
    /// The bond store could not be opened or read at start.
    case bondStore(BondStoreError)
    /// `init(stack:)` on a stack that has a peripheral role already.
    case stack(BLEStackError)
    /// `init(stack:)` with a security setup in the configuration: the stack's serves both roles.
    case securityBelongsToTheStack

    public var description: String {
        switch self {
        case let .database(error): return error.description
        case .alreadyPublished:
            return "publish() was already called; services added or removed since are served at once and announced with Service Changed"
        case .notPublished: return "publish() the services before advertising or updating values"
        case let .notPoweredOn(state): return "the peripheral is \(state), not powered on: call start() and wait for .poweredOn"
        case let .controller(error): return error.description
        case let .advertising(error): return error.description
        case let .unknownCharacteristic(id): return "no characteristic \(id) in the published database"
        case let .unknownService(uuid):
            return "no service \(uuid) was added: check the UUID against the services passed to add(_:)"
        case let .builtInServiceNotRemovable(uuid):
            return "service \(uuid) is built in (GAP 0x1800 / GATT 0x1801) and cannot be removed; set its values through the configuration instead"
        case let .bondStore(error): return error.description
        case let .stack(error): return error.description
        case .securityBelongsToTheStack:
            return "the security setup belongs to the BLEStack (BLEStack.Configuration.security), which serves both roles; leave it nil here"
        }
    }
}
