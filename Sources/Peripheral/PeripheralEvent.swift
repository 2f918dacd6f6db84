import GAP
import GATT
import HCI

/// The peripheral's state, as CoreBluetooth reports it.
public enum PeripheralState: Sendable, Equatable {
    case unknown
    case poweredOn
    /// The controller is being reset after a fault; connections are gone.
    case resetting
    case unsupported(String)
    case unauthorized(String)
    /// The controller went away.
    case poweredOff
}

/// Everything the application reacts to, in order.
public enum PeripheralEvent: Sendable {
    case stateChanged(PeripheralState)
    case advertisingStarted(AdvertisingPlan)
    case centralConnected(Central)
    case centralDisconnected(Central, reason: HCIStatus)
    case mtuChanged(Central, mtu: Int)
    case readRequest(ReadRequest)
    case writeRequests(WriteBatch)
    case subscribed(Central, CharacteristicID)
    case unsubscribed(Central, CharacteristicID)
    /// `updateValue` returned `false` earlier and the transmit queues have room again.
    case readyToUpdateSubscribers
}
