/// Cryptographically secure random octets (SystemRandomNumberGenerator), for Rand, nonces, keys.
public enum SecureRandom {
    /// `count` random octets; a negative count gives none.
    public static func bytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<max(count, 0)).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }
}
