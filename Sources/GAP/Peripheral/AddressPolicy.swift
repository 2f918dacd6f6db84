import BLECore

/// Which identity address the peripheral advertises with.
public enum AddressPolicy: Sendable, Equatable {
    /// The controller's public address (own address type 0x00).
    case publicAddress
    /// A random static address (own address type 0x01), kept stable by whoever persists it.
    case randomStatic(BluetoothAddress)

    var ownAddressType: AddressType {
        switch self {
        case .publicAddress: return .publicDevice
        case .randomStatic: return .randomDevice
        }
    }
}
