/// LE security mode 1 levels (Core Vol 3 Part C 10.2.1) a link has reached.
public enum LinkSecurityLevel: Int, Comparable, Sendable, CustomStringConvertible {
    /// Not encrypted (level 1).
    case none = 0
    /// Encrypted with a key from unauthenticated pairing, e.g. Just Works (level 2).
    case unauthenticated = 1
    /// Encrypted with a key from authenticated (MITM-protected) legacy pairing (level 3).
    case authenticated = 2
    /// Encrypted with a key from authenticated LE Secure Connections pairing (level 4).
    case authenticatedSecureConnections = 3

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String {
        switch self {
        case .none: return "none"
        case .unauthenticated: return "unauthenticated"
        case .authenticated: return "authenticated"
        case .authenticatedSecureConnections: return "authenticated Secure Connections"
        }
    }
}

/// What a key that encrypts a link is worth: where the level and the key size of the link come
/// from, since the controller does not know how the key was made.
public struct EncryptionKeyProperties: Sendable, Equatable {
    /// Negotiated encryption key size in octets, 7…16 (Core Vol 3 Part H 2.3.4).
    public var keySize: Int
    /// The pairing that made the key protected against a man in the middle.
    public var authenticated: Bool
    /// The key comes from LE Secure Connections pairing.
    public var secureConnections: Bool

    public init(keySize: Int, authenticated: Bool, secureConnections: Bool) {
        self.keySize = min(max(keySize, 7), 16)
        self.authenticated = authenticated
        self.secureConnections = secureConnections
    }

    /// The level a link encrypted with this key reaches.
    public var level: LinkSecurityLevel {
        guard authenticated else { return .unauthenticated }
        return secureConnections ? .authenticatedSecureConnections : .authenticated
    }
}

/// The security a link has right now; permission checks compare against it.
public struct LinkSecurity: Sendable, Equatable, CustomStringConvertible {
    public var level: LinkSecurityLevel
    /// Encryption key size in octets; 0 when not encrypted.
    public var keySize: Int

    public init(level: LinkSecurityLevel = .none, keySize: Int = 0) {
        self.level = level
        self.keySize = level == .none ? 0 : keySize
    }

    /// A fresh, unencrypted link.
    public static let none = LinkSecurity()

    public var isEncrypted: Bool { level != .none }
    public var isAuthenticated: Bool { level >= .authenticated }

    public var description: String {
        isEncrypted ? "\(level), \(keySize)-octet key" : "not encrypted"
    }
}
