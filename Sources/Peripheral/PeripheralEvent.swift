import GAP
import GATT
import GATTNotify
import HCI
import SMP

/// The peripheral's state, as CoreBluetooth reports it.
public typealias PeripheralState = RadioState

/// An indication that was queued for a central and will never be confirmed.
public struct AbandonedUpdate: Sendable, Equatable {
    public let characteristic: CharacteristicID
    public let value: [UInt8]
    /// It had been sent and was waiting for its confirmation.
    public let wasSent: Bool
}

/// Everything the application reacts to, in order.
public enum PeripheralEvent: Sendable {
    case stateChanged(PeripheralState)
    case advertisingStarted(AdvertisingPlan)
    case centralConnected(ConnectedCentral)
    case centralDisconnected(ConnectedCentral, reason: HCIStatus)
    case mtuChanged(ConnectedCentral, mtu: Int)
    /// The central's link was encrypted (or its encryption failed); `security` is what it has now.
    case securityChanged(ConnectedCentral, LinkSecurity)
    /// Pairing with the central completed; `bonded` when its keys were stored.
    case paired(ConnectedCentral, bonded: Bool)
    /// Pairing failed or was refused; `detail` says why, in words (the agent's refusal, say).
    case pairingFailed(ConnectedCentral, PairingFailureReason, detail: String)
    case readRequest(ReadRequest)
    case writeRequests(WriteBatch)
    case subscribed(ConnectedCentral, CharacteristicID)
    case unsubscribed(ConnectedCentral, CharacteristicID)
    /// `updateValue` returned `false` earlier and a central that refused has room again (or left):
    /// retry (CoreBluetooth's `peripheralManagerIsReady(toUpdateSubscribers:)`). The centrals listed
    /// are those that can take updates now, so one stalled central never holds the others back.
    case readyToUpdateSubscribers([ConnectedCentral])
    /// Indications that will never be confirmed: the central disconnected, turned indications off,
    /// or timed out.
    case indicationsAbandoned(ConnectedCentral, [AbandonedUpdate])
    /// The central confirmed an indication of this characteristic (applications that must know a
    /// value arrived, like store-and-forward, wait for it).
    case indicationConfirmed(ConnectedCentral, CharacteristicID)
    /// The central left an indication unconfirmed for the ATT transaction timeout (30 s); its link
    /// is being disconnected, as no further ATT PDU may be sent on it.
    case indicationTimedOut(ConnectedCentral)
    /// The controller is gone for good; `.stateChanged(.poweredOff)` follows and the events end.
    case controllerLost(ControllerLoss)
}
