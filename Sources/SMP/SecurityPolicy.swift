/// How this device pairs: what it offers and what it accepts.
public struct SecurityPolicy: Sendable, Equatable {
    /// Where the passkey comes from when we display one.
    public enum Passkey: Sendable, Equatable {
        /// A fixed 6-digit passkey (0…999999), e.g. printed on a headless board's label.
        case fixed(UInt32)
        /// A fresh random passkey per pairing, handed to the agent to show.
        case random
    }

    public var ioCapability: IOCapability = .noInputNoOutput
    /// Keys are stored (bonding flags 01) when both sides ask for it.
    public var bondable = true
    /// Refuse pairing that is not protected against a man in the middle.
    public var requireMITM = false
    /// Refuse legacy pairing.
    public var secureConnectionsOnly = false
    /// Offer LE Secure Connections (off: legacy pairing only, as an old device would).
    public var secureConnections = true
    /// The smallest encryption key size accepted, 7…16 octets (Vol 3 Part H 2.3.4).
    public var minimumKeySize = 16 {
        didSet { minimumKeySize = min(max(minimumKeySize, 7), 16) }
    }
    public var passkey: Passkey = .random
    /// Keys we ask the central for and keys we give (LTK only matters for legacy pairing).
    public var initiatorKeys: KeyDistribution = [.encryptionKey, .identityKey, .signingKey]
    public var responderKeys: KeyDistribution = [.encryptionKey, .identityKey, .signingKey]
    /// How long a pairing may wait for the next command (Vol 3 Part H 3.4: 30 s).
    public var timeout: Duration = .seconds(30)
    /// The first wait after a failed pairing from a peer; each further failure doubles it (2.3.6).
    public var repeatedAttemptsBackoff: Duration = .seconds(2)
    public var maximumRepeatedAttemptsBackoff: Duration = .seconds(120)

    public init() {}

    /// The AuthReq we put in Pairing Request, Pairing Response and Security Request.
    var authentication: AuthenticationRequirements {
        var requirements: AuthenticationRequirements = secureConnections || secureConnectionsOnly ? [.secureConnections] : []
        if bondable { requirements.insert(.bonding) }
        if requireMITM || ioCapability != .noInputNoOutput { requirements.insert(.mitm) }
        return requirements
    }
}
