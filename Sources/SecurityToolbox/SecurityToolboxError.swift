/// Why a security function, key or address could not be computed. Messages never contain key material.
public enum SecurityToolboxError: Error, Equatable, Sendable, CustomStringConvertible {
    /// An input does not have the length its function defines; `what` names the parameter.
    case invalidLength(what: String, expected: Int, actual: Int)
    /// The peer's P-256 public key is not a point on the curve (invalid-curve attack or corrupt PDU).
    case publicKeyNotOnCurve
    /// The peer's public key has our own X coordinate: it reflected our key back (CVE-2020-26558).
    case reflectedPublicKey
    /// A P-256 private key outside 1 ..< the curve order.
    case invalidPrivateKey
    /// The cryptography library refused a well-formed input; the message says what it reported.
    case cryptoFailure(String)

    public var description: String {
        switch self {
        case let .invalidLength(what, expected, actual):
            return "\(what) has \(actual) octet(s); pass exactly \(expected) octets"
        case .publicKeyNotOnCurve:
            return "the peer's public key is not a point on the P-256 curve (a forged or corrupted Pairing Public Key); abort the pairing"
        case .reflectedPublicKey:
            return "the peer sent our own public key back (a reflection attack); abort the pairing"
        case .invalidPrivateKey:
            return "the P-256 private key is zero or not below the curve order; use a fresh random key pair or the spec's debug key"
        case let .cryptoFailure(reason):
            return "the crypto library failed (\(reason)); this is a bug, please report it"
        }
    }

    /// Throws `.invalidLength` unless `bytes` has exactly `expected` octets.
    static func check(_ bytes: [UInt8], _ expected: Int, _ what: String) throws(SecurityToolboxError) {
        guard bytes.count == expected else { throw .invalidLength(what: what, expected: expected, actual: bytes.count) }
    }
}
