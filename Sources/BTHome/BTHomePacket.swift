/// One BTHome v2 advertisement's service data for UUID 0xFCD2 (the octets after the UUID): the
/// device information byte, then the objects in ascending id order (a receiver stops at the first
/// id it does not know), encrypted or not.
public enum BTHomePacket {
    public static let serviceUUID: UInt16 = 0xFCD2
    /// Device information: version 2 in bits 5–7; bit 0 says encrypted.
    public static let clearInfo: UInt8 = 0x40
    public static let encryptedInfo: UInt8 = 0x41

    /// The most octets of objects (the packet id included) one legacy advertising packet carries
    /// after the flags (3) and the service data's header (length, type, UUID: 4), in clear or
    /// encrypted (the device information octet, and 8 octets of counter and MIC).
    public static func objectRoom(encrypted: Bool) -> Int { 31 - 3 - 4 - 1 - (encrypted ? 8 : 0) }

    /// The measurement objects (the packet id first), sorted by object id; values beyond `room`
    /// octets are left out (the packet is full): the `leftOut` count says how many. Equal ids keep
    /// their order: the receiver names repeated ones by position (temperature_1, temperature_2), so a
    /// value that is missing (nil) or cannot be carried also leaves out every later value of its
    /// object, rather than let them move onto another sensor's entity.
    public static func objects(packetID: UInt8, measurements: [(BTHomeObject, Double?)],
                               room: Int = .max) -> (bytes: [UInt8], leftOut: Int) {
        var bytes = [BTHomeObject.packetID.rawValue, packetID]
        var leftOut = 0
        var broken: Set<BTHomeObject> = []
        let ordered = measurements.enumerated().sorted { ($0.element.0, $0.offset) < ($1.element.0, $1.offset) }
        for (_, (object, value)) in ordered where object != .packetID && !broken.contains(object) {
            guard let encoded = value.flatMap(object.encode) else {
                broken.insert(object)
                continue
            }
            if bytes.count + encoded.count <= room { bytes += encoded } else { leftOut += 1 }
        }
        return (bytes, leftOut)
    }

    /// Service data in clear.
    public static func clear(_ objects: [UInt8]) -> [UInt8] {
        [clearInfo] + objects
    }

    /// Service data encrypted with AES-CCM (4-octet MIC): ciphertext, counter (4, little-endian), MIC.
    /// `address` is the advertiser's address as written (most significant octet first), the order
    /// bthome-ble builds the nonce from.
    public static func encrypted(_ objects: [UInt8], key: AESCCM, address: [UInt8], counter: UInt32) throws(AESCCMError) -> [UInt8] {
        guard key.tagLength == 4 else { throw .invalidTagLength(key.tagLength) }
        let counterBytes = (0..<4).map { UInt8(truncatingIfNeeded: counter >> (8 * $0)) }
        let nonce = address + [UInt8(serviceUUID & 0xFF), UInt8(serviceUUID >> 8), encryptedInfo] + counterBytes
        let sealed = try key.seal(objects, nonce: nonce)
        return [encryptedInfo] + sealed.dropLast(key.tagLength) + counterBytes + sealed.suffix(key.tagLength)
    }
}
