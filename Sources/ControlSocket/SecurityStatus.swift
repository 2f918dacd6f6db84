import FoundationEssentials

/// One bond as `blesensor bonds list` shows it. Keys are never part of it: only what they are worth.
public struct BondStatus: Codable, Sendable, Equatable {
    /// The central's identity address, `AA:BB:CC:DD:EE:FF`.
    public var address: String
    /// `public` or `random` (a random static identity).
    public var addressType: String
    /// Encryption key size in octets, 7...16.
    public var keySize: Int
    /// Paired with MITM protection (passkey or numeric comparison).
    public var authenticated: Bool
    /// Paired with LE Secure Connections rather than legacy pairing.
    public var secureConnections: Bool
    /// The central distributed an IRK: it uses private addresses and is recognised through them.
    public var hasIRK: Bool
    /// ISO 8601 on the wire.
    public var createdAt: Date
    public var lastSeen: Date
    /// A link to this central is open now.
    public var connected: Bool

    public init(address: String, addressType: String, keySize: Int, authenticated: Bool, secureConnections: Bool,
                hasIRK: Bool, createdAt: Date, lastSeen: Date, connected: Bool) {
        self.address = address
        self.addressType = addressType
        self.keySize = keySize
        self.authenticated = authenticated
        self.secureConnections = secureConnections
        self.hasIRK = hasIRK
        self.createdAt = createdAt
        self.lastSeen = lastSeen
        self.connected = connected
    }

    /// `AA:BB:CC:DD:EE:FF (public)`, as `bonds remove` accepts it.
    public var identity: String { "\(address) (\(addressType))" }
}

/// Who may pair now, as `status` and `pair` report it.
public struct PairingStatus: Codable, Sendable, Equatable {
    /// `security.pairing`.
    public enum Mode: String, Codable, Sendable, Equatable {
        /// Any central may pair at any time.
        case always
        /// Only while a window opened by `blesensor pair --window` lasts.
        case window
        /// Pairing is refused; bonded centrals still re-encrypt.
        case never
    }

    /// How a passkey comes about, from `security.io-capability` and `security.passkey`.
    public enum PasskeyMode: String, Codable, Sendable, Equatable {
        /// The IO capability never uses a passkey (Just Works or numeric comparison).
        case none
        /// The configured 6-digit passkey.
        case fixed
        /// A fresh passkey per pairing, written to the log and shown in status when it is made.
        case random
    }

    public var mode: Mode
    /// Seconds left in the pairing window; nil when none is open (always nil unless `mode` is `window`).
    public var windowRemainingSeconds: Double?
    public var passkeyMode: PasskeyMode
    /// The fixed passkey, or the last random one shown; six digits, nil when there is none.
    public var passkey: String?

    public init(mode: Mode, windowRemainingSeconds: Double?, passkeyMode: PasskeyMode, passkey: String?) {
        self.mode = mode
        self.windowRemainingSeconds = windowRemainingSeconds
        self.passkeyMode = passkeyMode
        self.passkey = passkey
    }

    private enum CodingKeys: String, CodingKey { case mode, windowRemainingSeconds, passkeyMode, passkey }

    /// Unknown values are null, never missing, so a script can rely on every key.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(mode, forKey: .mode)
        try container.encode(windowRemainingSeconds, forKey: .windowRemainingSeconds)
        try container.encode(passkeyMode, forKey: .passkeyMode)
        try container.encode(passkey, forKey: .passkey)
    }

    /// A passkey as a central shows it: six digits, leading zeros kept.
    public static func passkeyText(_ value: UInt32) -> String {
        let digits = String(value % 1_000_000)
        return String(repeating: "0", count: 6 - digits.count) + digits
    }
}
