import BLECore
import Bonding
import HCI

/// What the security manager reports to the application.
public enum SecurityEvent: Sendable {
    case pairingStarted(Link, PairingMethod)
    /// Pairing completed; `bonded` when its keys were stored.
    case paired(Link, PairingResult, bonded: Bool)
    case pairingFailed(Link, PairingFailureReason, detail: String)
    /// A bonded peer connected (recognised by its address or, behind a private address, by its IRK).
    case bondedPeerConnected(Link, identity: DeviceAddress)
    /// Keys could not be stored: the pairing worked for this connection only.
    case bondNotStored(Link, BondStoreError)
    case bondRemoved(DeviceAddress)
    /// A pairing named a bonded identity (`claimed`) it did not prove and could not replace: it
    /// failed, but the link is encrypted with its key; the role drops the link.
    case bondTakeoverRefused(Link, claimed: DeviceAddress)
    /// Central role: the peripheral asks for security with these requirements (Vol 3 Part H 3.6.7).
    case securityRequested(Link, AuthenticationRequirements)
}
