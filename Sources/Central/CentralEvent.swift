import BLECore
import GAP
import GATTClient
import HCI
import SMP

/// What the central role reports, in order (CoreBluetooth's `CBCentralManagerDelegate` and the
/// per-peripheral callbacks that are not answers to a call).
public enum CentralEvent: Sendable {
    case stateChanged(RadioState)
    /// A device was heard (again, when its data changed or duplicates are allowed).
    case discovered(Discovery)
    case connected(RemotePeripheral)
    /// A connection attempt that `connect` did not start or already gave up on ended with this status.
    case connectionFailed(DeviceAddress, HCIStatus)
    case disconnected(RemotePeripheral, reason: HCIStatus)
    /// The link was encrypted (or its encryption failed); `security` is what it has now.
    case securityChanged(RemotePeripheral, LinkSecurity)
    /// The peripheral asked for security (SMP Security Request); what was done about it follows
    /// as `.securityChanged` or `.pairingFailed`.
    case securityRequested(RemotePeripheral)
    case paired(RemotePeripheral, bonded: Bool)
    case pairingFailed(RemotePeripheral, PairingFailureReason)
    /// The peripheral's database changed in this range (Service Changed): what was discovered there
    /// is gone and must be discovered again.
    case servicesChanged(RemotePeripheral, ClosedRange<UInt16>)
    /// The controller is gone for good; `.stateChanged(.poweredOff)` follows and the events end.
    case controllerLost(ControllerLoss)
}
