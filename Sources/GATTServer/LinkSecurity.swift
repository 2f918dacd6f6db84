/// Link security the server checks attribute permissions against.
public struct LinkSecurity: Sendable, Equatable {
    public var encrypted: Bool
    public var authenticated: Bool
    /// Encryption key size in octets; 0 when not encrypted.
    public var keySize: Int

    public init(encrypted: Bool = false, authenticated: Bool = false, keySize: Int = 0) {
        self.encrypted = encrypted
        self.authenticated = authenticated
        self.keySize = keySize
    }

    /// A fresh, unencrypted link.
    public static let none = LinkSecurity()

    /// The key size attributes with a security requirement demand (the maximum, 128 bits).
    public static let requiredKeySize = 16
}
