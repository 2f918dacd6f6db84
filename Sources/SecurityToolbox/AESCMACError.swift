/// Why an AES-CMAC could not be computed.
public enum AESCMACError: Error, Equatable, Sendable, CustomStringConvertible {
    /// AES-CMAC as Bluetooth uses it (Core Vol 3 Part H 2.2.5) takes a 128-bit key only.
    case invalidKeyLength(Int)
    /// The cryptography library refused the key; the message says what it reported.
    case cryptoFailure(String)

    public var description: String {
        switch self {
        case let .invalidKeyLength(count):
            return "AES-CMAC key has \(count) byte(s); pass exactly 16 bytes (a 128-bit key)"
        case let .cryptoFailure(reason):
            return "AES-CMAC failed in the crypto library (\(reason)); this is a bug, please report it"
        }
    }
}
