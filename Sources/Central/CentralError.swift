import BLECore
import Bonding
import GAP
import GATTClient
import HCI
import Host
import SMP

/// Why a central-role call failed, phrased so the user knows what to do next.
public enum CentralError: Error, Sendable, CustomStringConvertible {
    case notPoweredOn(RadioState)
    /// The controller could not be brought up.
    case controller(HCIHostError)
    case scanning(GAPError)
    /// `address` was not heard advertising within the time allowed.
    case notFound(BluetoothAddress, seconds: Double)
    case connectionFailed(DeviceAddress, GAPError)
    /// The call needs security and the manager was built without a `SecuritySetup`.
    case securityNotConfigured
    case security(SecurityError)
    /// The bond store could not be read.
    case bondStore(BondStoreError)
    case gatt(GATTClientError)
    /// The characteristic or service is not in the peripheral's database.
    case attributeNotFound(BluetoothUUID)
    case disconnected(HCIStatus)
    /// `init(stack:)` on a stack that has a central role already.
    case stack(BLEStackError)
    /// `init(stack:)` with a security setup in the configuration: the stack's serves both roles.
    case securityBelongsToTheStack

    public var description: String {
        switch self {
        case let .notPoweredOn(state): return "the controller is not powered on (\(state))"
        case let .controller(error): return "controller: \(error)"
        case let .scanning(error): return "scanning: \(error)"
        case let .notFound(address, seconds):
            return "\(address) was not heard advertising within \(seconds) s: check it is on, in range and advertising (blesensor scan lists what is heard)"
        case let .connectionFailed(address, error): return "connecting to \(address) failed: \(error)"
        case .securityNotConfigured: return "pairing needs a bond store; the central was set up without security"
        case let .security(error): return "\(error)"
        case let .bondStore(error): return "bond store: \(error)"
        case let .gatt(error): return "\(error)"
        case let .attributeNotFound(uuid): return "the peripheral has no attribute \(uuid)"
        case let .disconnected(reason): return "the peripheral disconnected (\(reason))"
        case let .stack(error): return error.description
        case .securityBelongsToTheStack:
            return "the security setup belongs to the BLEStack (BLEStack.Configuration.security), which serves both roles; leave it nil here"
        }
    }
}
