import BTHome
import Testing
import TestSupport

/// Byte for byte against bthome.io's format and encryption pages.
@Suite struct BTHomePacketTests {
    @Test(arguments: [
        // bthome.io/format examples: 25.06 °C, 50.55 %, 1008.83 hPa, 97 %.
        (BTHomeObject.temperature, 25.06, "02ca09"),
        (.humidity, 50.55, "03bf13"),
        (.pressure, 100_883, "04138a01"),
        (.battery, 97, "0161"),
        (.temperature, -10.5, "02e6fb"),
        (.temperature, 327.67, "02ff7f"),
        (.temperature, -327.68, "020080"),
        // Humidity a hair outside 0…100 % is clamped, not dropped.
        (.humidity, 100.01, "031027"),
        (.humidity, 104, "031027"),
        (.humidity, -0.01, "030000"),
    ])
    func objectEncoding(object: BTHomeObject, value: Double, expected: String) {
        #expect(object.encode(value)?.hexString == expected)
    }

    @Test(arguments: [
        (BTHomeObject.temperature, 327.68), (.temperature, -400), (.temperature, .nan), (.temperature, .infinity),
        (.humidity, .nan), (.battery, 101), (.battery, -1), (.pressure, 16_777_216), (.pressure, -1),
    ])
    func valuesAnObjectCannotCarryAreLeftOut(object: BTHomeObject, value: Double) {
        #expect(object.encode(value) == nil)
    }

    @Test func objectsAreInAscendingIdOrderAfterThePacketID() {
        let (objects, leftOut) = BTHomePacket.objects(packetID: 9, measurements: [
            (.pressure, 100_883), (.humidity, 50.55), (.temperature, 25.06), (.battery, 97), (.temperature, .nan),
        ])
        #expect(leftOut == 0)
        #expect(objects.hexString == "0009" + "0161" + "02ca09" + "03bf13" + "04138a01")
        #expect(BTHomePacket.clear(objects).hexString == "40" + "0009" + "0161" + "02ca09" + "03bf13" + "04138a01")
    }

    /// Receivers name repeated objects by position: after a missing value of an object, its later
    /// values are left out too, so none lands on another sensor's entity.
    @Test func afterAMissingValueTheLaterValuesOfItsObjectAreLeftOut() {
        let objects = BTHomePacket.objects(packetID: 0, measurements: [
            (.temperature, 20), (.humidity, 40), (.temperature, nil), (.humidity, 41), (.temperature, 22), (.humidity, 42), (.battery, 50),
        ]).bytes
        #expect(objects.hexString == "0000" + "0132" + "02d007" + "03a00f" + "030410" + "036810")
        let failed = BTHomePacket.objects(packetID: 0, measurements: [(.temperature, 20), (.temperature, 400), (.temperature, 22)]).bytes
        #expect(failed.hexString == "0000" + "02d007")
    }

    @Test func equalIdsKeepTheirOrder() {
        let objects = BTHomePacket.objects(packetID: 0, measurements: [(.temperature, 20), (.battery, 50), (.temperature, 21)]).bytes
        #expect(objects.hexString == "0000" + "0132" + "02d007" + "023408")
    }

    /// What does not fit one advertising packet is left out (and counted), in object order.
    @Test func objectsBeyondThePacketAreLeftOut() throws {
        #expect(BTHomePacket.objectRoom(encrypted: false) == 23 && BTHomePacket.objectRoom(encrypted: true) == 15)
        let measurements: [(BTHomeObject, Double?)] = [(.pressure, 100_883), (.humidity, 50.55), (.temperature, 20), (.battery, 97),
                                                      (.temperature, 21), (.temperature, 22), (.temperature, 23)]
        let encrypted = BTHomePacket.objects(packetID: 1, measurements: measurements, room: BTHomePacket.objectRoom(encrypted: true))
        #expect(encrypted.bytes.hexString == "0001" + "0161" + "02d007" + "023408" + "029808")
        #expect(encrypted.leftOut == 3)
        let clear = BTHomePacket.objects(packetID: 1, measurements: measurements, room: BTHomePacket.objectRoom(encrypted: false))
        #expect(clear.bytes.count == 23 && clear.leftOut == 0)
        let more = BTHomePacket.objects(packetID: 1, measurements: measurements + [(.battery, 50)], room: BTHomePacket.objectRoom(encrypted: false))
        #expect(more.bytes.count == 21 && more.leftOut == 1)
        let key = try AESCCM(key: [UInt8](repeating: 1, count: 16))
        // Flags (3) and the service data structure (4 + data) fit the 31 octets (a clear one exactly).
        let sealed = try BTHomePacket.encrypted(encrypted.bytes, key: key, address: [UInt8](repeating: 0xC1, count: 6), counter: 1)
        #expect(3 + 4 + sealed.count <= 31)
        #expect(3 + 4 + BTHomePacket.clear(clear.bytes).count == 31)
    }

    /// bthome.io/encryption: key 231d…b932, MAC 5448E68F80A5, counter octets 00112233, data 02CA09 03BF13.
    @Test func encryptedAsBTHomeIOExample() throws {
        let key = try AESCCM(key: hex("231d39c1d7cc1ab1aee224cd096db932"))
        let data = try BTHomePacket.encrypted(hex("02CA0903BF13"), key: key, address: hex("5448E68F80A5"), counter: 0x3322_1100)
        #expect(data.hexString == "41" + "a47266c95f73" + "00112233" + "78237214")
        let nonce = hex("5448e68f80a5d2fc4100112233")
        #expect(try key.open(Array(data[1..<7]) + Array(data[11...]), nonce: nonce) == hex("02CA0903BF13"))
    }

    @Test func encryptionNeedsAFourOctetTag() throws {
        let key = try AESCCM(key: [UInt8](repeating: 1, count: 16), tagLength: 8)
        #expect(throws: AESCCMError.invalidTagLength(8)) {
            try BTHomePacket.encrypted([0, 1], key: key, address: [UInt8](repeating: 0, count: 6), counter: 0)
        }
    }
}
