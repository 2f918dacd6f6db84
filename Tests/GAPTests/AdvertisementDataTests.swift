import BLECore
import Testing
@testable import GAP

@Suite struct AdvertisementDataTests {
    @Test func decodesAnIBeacon() throws {
        // Flags, then Apple's manufacturer data: type 0x02 0x15, proximity UUID, major 1, minor 2, measured power −59.
        let uuid: [UInt8] = [0xE2, 0xC5, 0x6D, 0xB5, 0xDF, 0xFB, 0x48, 0xD2, 0xB0, 0x60, 0xD0, 0xF5, 0xA7, 0x10, 0x96, 0xE0]
        let bytes: [UInt8] = [0x02, 0x01, 0x06, 0x1A, 0xFF, 0x4C, 0x00, 0x02, 0x15] + uuid + [0x00, 0x01, 0x00, 0x02, 0xC5]
        let data = try AdvertisementData(parsing: bytes)
        #expect(data.flags == 0x06)
        #expect(data.manufacturerData == [.init(companyIdentifier: 0x004C, data: [0x02, 0x15] + uuid + [0x00, 0x01, 0x00, 0x02, 0xC5])])
        #expect(data.structures.count == 2)
        #expect(data.malformation == nil)
    }

    @Test func decodesAnEddystoneURL() throws {
        // Complete 16-bit list 0xFEAA; service data 0xFEAA: URL frame, Tx −8 dBm, "https://google.com".
        let bytes: [UInt8] = [0x02, 0x01, 0x06, 0x03, 0x03, 0xAA, 0xFE,
                              0x0D, 0x16, 0xAA, 0xFE, 0x10, 0xF8, 0x03, 0x67, 0x6F, 0x6F, 0x67, 0x6C, 0x65, 0x07]
        let data = try AdvertisementData(parsing: bytes)
        #expect(data.serviceUUIDs == [BluetoothUUID(0xFEAA)])
        #expect(data.serviceData == [BluetoothUUID(0xFEAA): [0x10, 0xF8, 0x03, 0x67, 0x6F, 0x6F, 0x67, 0x6C, 0x65, 0x07]])
    }

    @Test func decodesEveryFieldKind() throws {
        let uuid128 = BluetoothUUID("6E400001-B5A3-F393-E0A9-E50E24DCCA9E")!
        var bytes: [UInt8] = [0x05, 0x02, 0x0D, 0x18, 0x0F, 0x18]            // incomplete 16-bit: 0x180D, 0x180F
        bytes += [0x05, 0x05, 0x78, 0x56, 0x34, 0x12]                       // complete 32-bit: 0x12345678
        bytes += [0x11, 0x07] + uuid128.littleEndian128                     // complete 128-bit
        bytes += [0x03, 0x14, 0x12, 0x18]                                   // solicited 16-bit: 0x1812
        bytes += [0x05, 0x08] + Array("Envi".utf8)                          // shortened name
        bytes += [0x02, 0x0A, 0xF4]                                         // Tx power −12 dBm
        bytes += [0x03, 0x19, 0x41, 0x03]                                   // appearance 0x0341
        bytes += [0x07, 0x20, 0x78, 0x56, 0x34, 0x12, 0xAB, 0xCD]           // service data, 32-bit UUID
        bytes += [0x13, 0x21] + uuid128.littleEndian128 + [0x01, 0x02]      // service data, 128-bit UUID
        bytes += [0x04, 0xFF, 0xFF, 0xFF, 0x01, 0x03, 0xFF, 0x59, 0x00]     // two manufacturer data structures
        let data = try AdvertisementData(parsing: bytes)
        #expect(data.serviceUUIDs == [BluetoothUUID(0x180D), BluetoothUUID(0x180F), BluetoothUUID(uint32: 0x12345678), uuid128])
        #expect(data.solicitedServiceUUIDs == [BluetoothUUID(0x1812)])
        #expect(data.localName == "Envi")
        #expect(!data.isLocalNameComplete)
        #expect(data.txPowerLevel == -12)
        #expect(data.appearance == 0x0341)
        #expect(data.serviceData == [BluetoothUUID(uint32: 0x12345678): [0xAB, 0xCD], uuid128: [0x01, 0x02]])
        #expect(data.manufacturerData == [.init(companyIdentifier: 0xFFFF, data: [0x01]), .init(companyIdentifier: 0x0059, data: [])])
    }

    @Test func scanResponseFieldsAreAddedAndACompleteNameWins() {
        let advertising = AdvertisementData(decoding: [0x02, 0x01, 0x06, 0x03, 0x03, 0x1A, 0x18, 0x05, 0x08] + Array("Envi".utf8))
        let response = AdvertisementData(decoding: [0x03, 0x03, 0x1A, 0x18, 0x03, 0x02, 0x0F, 0x18, 0x02, 0x01, 0x02, 0x0C, 0x09]
                                         + Array("Environment".utf8) + [0x02, 0x0A, 0x04])
        let merged = advertising.merging(scanResponse: response)
        #expect(merged.localName == "Environment")
        #expect(merged.isLocalNameComplete)
        #expect(merged.serviceUUIDs == [BluetoothUUID(0x181A), BluetoothUUID(0x180F)])
        // The advertising data's own flags stay.
        #expect(merged.flags == 0x06)
        #expect(merged.txPowerLevel == 4)
        #expect(merged.structures.count == advertising.structures.count + response.structures.count)
        // A complete name in the advertising data is not replaced by the scan response's.
        let complete = AdvertisementData(decoding: [0x03, 0x09, 0x41, 0x42])
        #expect(complete.merging(scanResponse: AdvertisementData(decoding: [0x02, 0x08, 0x43])).localName == "AB")
    }

    @Test func malformedDataDecodesWhatPrecedesTheError() {
        // The second structure claims 10 bytes; only 2 follow.
        let bytes: [UInt8] = [0x02, 0x01, 0x06, 0x0A, 0x09, 0x41, 0x42]
        #expect(throws: AdvertisingDataError.malformed(offset: 3, reason: "structure length 10 runs past the end of 7 bytes")) {
            try AdvertisementData(parsing: bytes)
        }
        let partial = AdvertisementData(decoding: bytes)
        #expect(partial.flags == 0x06)
        #expect(partial.localName == nil)
        #expect(partial.malformation != nil)
        // Values of the wrong size stay raw: odd 16-bit list (whole UUIDs kept), short appearance,
        // empty Tx power, service data shorter than its UUID, one-byte manufacturer data.
        let odd = AdvertisementData(decoding: [0x04, 0x03, 0x0D, 0x18, 0x0F, 0x02, 0x19, 0x01, 0x01, 0x0A,
                                               0x02, 0x16, 0x0D, 0x02, 0xFF, 0x01])
        #expect(odd.serviceUUIDs == [BluetoothUUID(0x180D)])
        #expect(odd.appearance == nil)
        #expect(odd.txPowerLevel == nil)
        #expect(odd.serviceData.isEmpty)
        #expect(odd.manufacturerData.isEmpty)
        #expect(odd.structures.count == 5)
    }

    @Test func everyTruncationOfRealDataIsTotal() {
        let bytes: [UInt8] = [0x02, 0x01, 0x06, 0x03, 0x03, 0xAA, 0xFE, 0x0D, 0x16, 0xAA, 0xFE, 0x10, 0xF8, 0x03,
                              0x67, 0x6F, 0x6F, 0x67, 0x6C, 0x65, 0x07, 0x02, 0x0A, 0xF4]
        for end in 0...bytes.count {
            let data = AdvertisementData(decoding: Array(bytes[..<end]))
            #expect(data.structures.count <= 4)
        }
        // Zero length ends the significant part; padding after it is ignored.
        #expect(AdvertisementData(decoding: [0x02, 0x01, 0x06, 0x00, 0xFF, 0xFF]).structures.count == 1)
    }
}
