import BLECore
import HCI

/// Why pairing or encryption as central did not complete; each says what the user can do.
public enum SecurityError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `start()` has not loaded our identity and the bonds yet.
    case notStarted
    /// Pairing and encryption are started by the central; this link's role is peripheral.
    case notCentral(LinkID)
    /// No `startEncryption` was given to the security manager, so it cannot encrypt a link.
    case encryptionUnavailable
    /// A pairing or an encryption is already under way on this link.
    case busy(LinkID)
    /// There is no bond with this peer (identity address, after resolving a private address).
    case notBonded(DeviceAddress)
    /// The bond has no key for encrypting as central (a legacy bond made when the peer was central).
    case noCentralKey(DeviceAddress)
    /// The peer answered PIN or Key Missing (0x06): it no longer has the bond. Ours is kept.
    case keyMissing(DeviceAddress)
    /// Pairing failed with this SMP reason (sent by us or by the peer).
    case pairingFailed(PairingFailureReason, detail: String)
    /// The controller reported this status for the encryption.
    case encryptionFailed(HCIStatus)
    /// No SMP command for 30 s (Vol 3 Part H 3.4): no more pairing on this connection.
    case timeout
    case linkClosed

    public var description: String {
        switch self {
        case .notStarted: return "the security manager has not started (its bond store is not loaded)"
        case let .notCentral(link): return "\(link) is a peripheral-role link: the peer central starts pairing and encryption"
        case .encryptionUnavailable: return "this security manager was made without a way to start encryption"
        case let .busy(link): return "a pairing or encryption is already under way on \(link); wait for it"
        case let .notBonded(peer): return "\(peer) is not bonded; pair with it first"
        case let .noCentralKey(peer):
            return "the bond with \(peer) holds no key for encrypting as central; remove the bond and pair again"
        case let .keyMissing(peer):
            return "\(peer) has lost its bond with us (PIN or Key Missing, 0x06); remove our bond with it and pair again"
        case let .pairingFailed(reason, detail): return "pairing failed: \(reason): \(detail)"
        case let .encryptionFailed(status): return "encryption failed: \(status)"
        case .timeout: return "pairing timed out (no SMP command for 30 s); reconnect to pair again"
        case .linkClosed: return "the link closed"
        }
    }
}

/// What a central does with a peripheral's Security Request when the application leaves it to the manager.
public enum SecurityRequestResponse: Sendable, Equatable {
    /// Encrypt with the bond's key when it meets the request, else pair.
    case encryptOrPair
    /// Encrypt when bonded; otherwise leave it to the application.
    case encryptIfBonded
    /// Only report it (`SecurityEvent.securityRequested`).
    case ignore
}
