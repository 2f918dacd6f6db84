import Crypto
import CryptoExtras

/// AES-CCM (RFC 3610, NIST SP 800-38C) with a 128-bit key, built on CryptoExtras' AES block
/// function because swift-crypto has no CCM API. BTHome uses a 13-byte nonce (L = 2) and a 4-byte
/// tag; the nonce and tag lengths are parameters so that RFC 3610's vectors check the construction.
public struct AESCCM: Sendable {
    private let key: SymmetricKey
    public let tagLength: Int

    /// `tagLength` is M: 4, 6, …, 16 octets.
    public init(key: [UInt8], tagLength: Int = 4) throws(AESCCMError) {
        guard key.count == 16 else { throw .invalidKeyLength(key.count) }
        guard (4...16).contains(tagLength), tagLength % 2 == 0 else { throw .invalidTagLength(tagLength) }
        self.key = SymmetricKey(data: key)
        self.tagLength = tagLength
    }

    /// Ciphertext followed by the tag.
    public func seal(_ plaintext: [UInt8], nonce: [UInt8], authenticating header: [UInt8] = []) throws(AESCCMError) -> [UInt8] {
        let lengthSize = try Self.lengthFieldSize(nonce: nonce, messageLength: plaintext.count)
        let tag = try mac(plaintext, header: header, nonce: nonce, lengthSize: lengthSize)
        var output = try ctr(plaintext, nonce: nonce, lengthSize: lengthSize)
        let firstBlock = try keyStreamBlock(0, nonce: nonce, lengthSize: lengthSize)
        for index in 0..<tagLength { output.append(tag[index] ^ firstBlock[index]) }
        return output
    }

    /// The plaintext of `sealed` (ciphertext followed by the tag), or `.authenticationFailed` when the
    /// tag does not match (a wrong key, nonce, header or altered data): nothing of it is returned then.
    public func open(_ sealed: [UInt8], nonce: [UInt8], authenticating header: [UInt8] = []) throws(AESCCMError) -> [UInt8] {
        guard sealed.count >= tagLength else { throw .authenticationFailed }
        let ciphertext = Array(sealed.dropLast(tagLength))
        let lengthSize = try Self.lengthFieldSize(nonce: nonce, messageLength: ciphertext.count)
        let plaintext = try ctr(ciphertext, nonce: nonce, lengthSize: lengthSize)
        let tag = try mac(plaintext, header: header, nonce: nonce, lengthSize: lengthSize)
        let firstBlock = try keyStreamBlock(0, nonce: nonce, lengthSize: lengthSize)
        // Compared without an early exit, so the time taken says nothing about where it differs.
        var difference: UInt8 = 0
        for (index, received) in sealed.suffix(tagLength).enumerated() { difference |= received ^ tag[index] ^ firstBlock[index] }
        guard difference == 0 else { throw .authenticationFailed }
        return plaintext
    }

    /// L, the size of the length field: 15 minus the nonce length (7…13 octets).
    static func lengthFieldSize(nonce: [UInt8], messageLength: Int) throws(AESCCMError) -> Int {
        guard (7...13).contains(nonce.count) else { throw .invalidNonceLength(nonce.count) }
        let size = 15 - nonce.count
        guard size >= 8 || messageLength < 1 << (8 * size) else { throw .messageTooLong(messageLength) }
        return size
    }

    private func encrypt(_ block: inout [UInt8]) throws(AESCCMError) {
        do { try AES.permute(&block, key: key) } catch { throw .cryptoFailure(String(describing: error)) }
    }

    /// The CBC-MAC of B0, the encoded header and the message (RFC 3610 2.2), all M octets of it.
    private func mac(_ message: [UInt8], header: [UInt8], nonce: [UInt8], lengthSize: Int) throws(AESCCMError) -> [UInt8] {
        var blocks: [UInt8] = [(header.isEmpty ? 0 : 0x40) | UInt8((tagLength - 2) / 2) << 3 | UInt8(lengthSize - 1)]
        blocks += nonce
        blocks += Self.bigEndian(message.count, size: lengthSize)
        if !header.isEmpty {
            var encoded = header.count < 0xFF00 ? Self.bigEndian(header.count, size: 2) : [0xFF, 0xFE] + Self.bigEndian(header.count, size: 4)
            encoded += header
            blocks += Self.padded(encoded)
        }
        blocks += Self.padded(message)
        var state = [UInt8](repeating: 0, count: 16)
        for start in stride(from: 0, to: blocks.count, by: 16) {
            for index in 0..<16 { state[index] ^= blocks[start + index] }
            try encrypt(&state)
        }
        return Array(state.prefix(tagLength))
    }

    /// A_i encrypted: flags L-1, the nonce, the counter i (RFC 3610 2.3).
    private func keyStreamBlock(_ counter: Int, nonce: [UInt8], lengthSize: Int) throws(AESCCMError) -> [UInt8] {
        var block = [UInt8(lengthSize - 1)] + nonce + Self.bigEndian(counter, size: lengthSize)
        try encrypt(&block)
        return block
    }

    /// Counter mode from A_1 on: encryption and decryption are the same.
    private func ctr(_ input: [UInt8], nonce: [UInt8], lengthSize: Int) throws(AESCCMError) -> [UInt8] {
        var output = input
        var counter = 1
        for start in stride(from: 0, to: input.count, by: 16) {
            let stream = try keyStreamBlock(counter, nonce: nonce, lengthSize: lengthSize)
            for index in start..<min(start + 16, input.count) { output[index] ^= stream[index - start] }
            counter += 1
        }
        return output
    }

    private static func bigEndian(_ value: Int, size: Int) -> [UInt8] {
        (0..<size).map { UInt8(truncatingIfNeeded: size - 1 - $0 >= 8 ? 0 : value >> (8 * (size - 1 - $0))) }
    }

    private static func padded(_ bytes: [UInt8]) -> [UInt8] {
        bytes + [UInt8](repeating: 0, count: (16 - bytes.count % 16) % 16)
    }
}

/// Why AES-CCM could not seal or open. Messages never contain key material.
public enum AESCCMError: Error, Equatable, Sendable, CustomStringConvertible {
    case invalidKeyLength(Int)
    case invalidTagLength(Int)
    case invalidNonceLength(Int)
    case messageTooLong(Int)
    /// The tag does not match: a wrong key, or data that is not what was sealed.
    case authenticationFailed
    case cryptoFailure(String)

    public var description: String {
        switch self {
        case let .invalidKeyLength(count): "an AES-128 key has 16 octets, not \(count)"
        case let .invalidTagLength(count): "an AES-CCM tag has 4, 6, …, 16 octets, not \(count)"
        case let .invalidNonceLength(count): "an AES-CCM nonce has 7 to 13 octets, not \(count)"
        case let .messageTooLong(count): "\(count) octets is too long for this nonce's length field"
        case .authenticationFailed: "the message does not authenticate: a wrong key, or altered data"
        case let .cryptoFailure(reason): "the crypto library failed (\(reason)); this is a bug, please report it"
        }
    }
}
