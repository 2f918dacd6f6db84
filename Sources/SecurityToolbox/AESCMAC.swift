import Crypto
import CryptoExtras

/// AES-CMAC (RFC 4493) with a 128-bit key, as the Bluetooth security functions and the
/// Database Hash use it. Bytes go in and come out in the RFC's order (most significant first).
public enum AESCMAC {
    public static func mac(key: [UInt8], message: [UInt8]) throws(AESCMACError) -> [UInt8] {
        guard key.count == 16 else { throw .invalidKeyLength(key.count) }
        do {
            var cmac = try AES.CMAC(key: SymmetricKey(data: key))
            cmac.update(data: message)
            return cmac.finalize().withUnsafeBytes { Array($0) }
        } catch {
            throw .cryptoFailure(String(describing: error))
        }
    }
}
