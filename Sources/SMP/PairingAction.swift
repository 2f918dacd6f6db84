import BLECore
import Bonding
import HCI

/// What a pairing session asks the security manager to do, in order.
enum PairingAction: Sendable, Equatable {
    case send(SMPCommand)
    /// Initiator: the method is chosen (the Pairing Response was accepted).
    case started(PairingMethod)
    /// Initiator: encrypt the link with this key, EDIV and Rand zero (STK or SC LTK).
    case startEncryption(key: [UInt8], properties: EncryptionKeyProperties)
    /// Ask the agent whether this pairing may go on (`PairingSession.approve` answers).
    case askApproval(PairingFeatures)
    case display(passkey: UInt32)
    /// Ask the agent for a typed passkey (`PairingSession.passkeyEntered` answers).
    case askPasskey
    /// Ask the agent to compare (`PairingSession.comparisonConfirmed` answers).
    case askComparison(UInt32)
    /// Pairing failed; `sent` when we told the peer (Pairing Failed), not when it told us.
    case failed(PairingFailureReason, sent: Bool, detail: String)
    case completed(PairingResult)
}

/// What a completed pairing produced.
public struct PairingResult: Sendable, Equatable {
    public var method: PairingMethod
    public var secureConnections: Bool
    public var keySize: Int
    /// Both sides asked for bonding: the keys are to be stored.
    public var bonding: Bool
    /// The key that encrypts when the peer is central: the LTK of LE Secure Connections, or the
    /// legacy LTK we distributed (nil in legacy pairing without our LTK).
    public var ltk: LongTermKeyRecord?
    /// The legacy LTK the peer distributed: the key that encrypts when we are central.
    public var peerLTK: LongTermKeyRecord?
    public var peerIRK: Key128?
    /// The identity address the peer distributed; nil without one (its connection address is its identity).
    public var peerIdentity: DeviceAddress?
    public var peerCSRK: Key128?
    public var localCSRK: Key128?
    /// The peer sent the specification's debug public key (Vol 3 Part H 2.3.5.6.1): anyone with an
    /// air trace can compute the link's key, so it is neither authenticated nor stored.
    public var peerUsedDebugKey = false
    /// The numeric comparison was accepted with no person comparing: the key is unauthenticated.
    public var comparedByNoOne = false

    /// Authenticated only when the method protects against a man in the middle and it really did:
    /// a person compared or typed, and neither side used a published key.
    public var properties: EncryptionKeyProperties {
        EncryptionKeyProperties(keySize: keySize, authenticated: method.isAuthenticated && !peerUsedDebugKey && !comparedByNoOne,
                                secureConnections: secureConnections)
    }
}
