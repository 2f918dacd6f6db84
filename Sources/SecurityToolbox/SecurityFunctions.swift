import BLECore
import Crypto
import CryptoExtras

/// The LE Security Manager's cryptographic toolbox (Core Vol 3 Part H 2.2).
///
/// Every byte array is in SMP wire order, least significant octet first, exactly as SMP PDUs carry
/// values (the one exception, h6's key ID, says so). The spec defines the functions on values written
/// most significant octet first, so each function reverses its inputs and result internally.
public enum SecurityFunctions {
    /// Vol 3 Part H 2.2.1 security function e: AES-128 single block, key & plaintext & result little-endian.
    public static func e(key: [UInt8], plaintext: [UInt8]) throws(SecurityToolboxError) -> [UInt8] {
        try SecurityToolboxError.check(key, 16, "e key")
        try SecurityToolboxError.check(plaintext, 16, "e plaintext")
        var block = Array(plaintext.reversed())
        do {
            try AES.permute(&block, key: SymmetricKey(data: Array(key.reversed())))
        } catch {
            throw .cryptoFailure(String(describing: error))
        }
        return block.reversed()
    }

    /// AES-CMAC over values already in the spec's order (most significant octet first).
    static func cmac(key: [UInt8], message: [UInt8]) throws(SecurityToolboxError) -> [UInt8] {
        do {
            return try AESCMAC.mac(key: key, message: message)
        } catch {
            switch error {
            case let .invalidKeyLength(count):
                throw .invalidLength(what: "AES-CMAC key", expected: 16, actual: count)
            case let .cryptoFailure(reason):
                throw .cryptoFailure(reason)
            }
        }
    }

    /// The spec's 56-bit address value (type octet above the 48-bit address), most significant first.
    /// Identity types count as their base type: public 0, random 1.
    static func addressValue(_ device: DeviceAddress) -> [UInt8] {
        [device.type.isRandom ? 1 : 0] + device.address.littleEndianBytes.reversed()
    }
}
