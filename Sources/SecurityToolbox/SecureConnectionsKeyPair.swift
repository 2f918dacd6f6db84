import Crypto

/// LE Secure Connections P-256 key pair with the SMP wire format: X and Y 32 octets each, little-endian.
/// Its description and mirror show the public key only, so logging a key pair cannot leak the private key.
public struct SecureConnectionsKeyPair: Sendable, CustomStringConvertible, CustomReflectable {
    private let privateKey: P256.KeyAgreement.PrivateKey
    public let publicKeyX: [UInt8]
    public let publicKeyY: [UInt8]

    /// A fresh random key pair.
    public init() {
        self.init(P256.KeyAgreement.PrivateKey())
    }

    /// The key pair of a known private key (32 octets, little-endian): the spec's debug key, tests.
    public init(privateKeyLittleEndian: [UInt8]) throws(SecurityToolboxError) {
        try SecurityToolboxError.check(privateKeyLittleEndian, 32, "P-256 private key")
        do {
            self.init(try P256.KeyAgreement.PrivateKey(rawRepresentation: Array(privateKeyLittleEndian.reversed())))
        } catch {
            throw .invalidPrivateKey
        }
    }

    private init(_ privateKey: P256.KeyAgreement.PrivateKey) {
        self.privateKey = privateKey
        // rawRepresentation is X || Y, each 32 octets most significant first.
        let raw = Array(privateKey.publicKey.rawRepresentation)
        publicKeyX = raw[0..<32].reversed()
        publicKeyY = raw[32..<64].reversed()
    }

    /// DHKey (32 octets, little-endian): the X coordinate of our private key times the peer's point.
    /// Throws `.invalidLength` unless X and Y have 32 octets each, `.reflectedPublicKey` when the peer's X
    /// is ours (our key or its negation, which give the same DHKey) and `.publicKeyNotOnCurve` for a
    /// point not on P-256 (a peer's key must be validated before use: invalid-curve attack).
    public func dhKey(peerX: [UInt8], peerY: [UInt8]) throws(SecurityToolboxError) -> [UInt8] {
        try SecurityToolboxError.check(peerX, 32, "peer public key X")
        try SecurityToolboxError.check(peerY, 32, "peer public key Y")
        guard peerX != publicKeyX else { throw .reflectedPublicKey }
        let peerKey: P256.KeyAgreement.PublicKey
        do {
            // The uncompressed X9.63 form 0x04 || X || Y; parsing it checks that the point is on the curve.
            peerKey = try P256.KeyAgreement.PublicKey(x963Representation: [0x04] + peerX.reversed() + peerY.reversed())
        } catch {
            throw .publicKeyNotOnCurve
        }
        do {
            let secret = try privateKey.sharedSecretFromKeyAgreement(with: peerKey)
            return secret.withUnsafeBytes { Array($0.reversed()) }
        } catch {
            throw .cryptoFailure(String(describing: error))
        }
    }

    public var description: String {
        "P-256 key pair (public key X \(publicKeyX.reversed().hexString), private key withheld)"
    }

    public var customMirror: Mirror {
        Mirror(self, children: ["publicKeyX": publicKeyX, "publicKeyY": publicKeyY])
    }
}
