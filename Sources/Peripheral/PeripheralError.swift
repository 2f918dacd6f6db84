import GAP
import GATT
import HCI

/// Failures of the peripheral API, each with what to do.
public enum PeripheralError: Error, Equatable, Sendable, CustomStringConvertible {
    case database(GATTDatabaseError)
    case alreadyPublished
    case notPublished
    case notPoweredOn(PeripheralState)
    case controller(HCIHostError)
    case advertising(GAPError)
    case unknownCharacteristic(CharacteristicID)

    public var description: String {
        switch self {
        case let .database(error): return error.description
        case .alreadyPublished: return "services were already published: add every service before publish()"
        case .notPublished: return "publish() the services before advertising or updating values"
        case let .notPoweredOn(state): return "the peripheral is \(state), not powered on: call start() and wait for .poweredOn"
        case let .controller(error): return error.description
        case let .advertising(error): return error.description
        case let .unknownCharacteristic(id): return "no characteristic \(id) in the published database"
        }
    }
}
