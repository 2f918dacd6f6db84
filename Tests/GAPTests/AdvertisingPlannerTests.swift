import BLECore
import Testing
@testable import GAP

@Suite struct AdvertisingPlannerTests {
    let nus = BluetoothUUID("6E400001-B5A3-F393-E0A9-E50E24DCCA9E")!

    @Test func shortNameGoesInTheAdvertisingData() throws {
        let plan = try AdvertisingPlanner.plan(AdvertisingContent(localName: "Sensor"))
        #expect(plan.advertisingData.hexString == "020106" + "0709" + "53656e736f72")
        #expect(plan.scanResponseData.isEmpty)
        #expect(!plan.nameShortened)
    }

    @Test func uuidsComeFirstAndTheNameMovesToTheScanResponse() throws {
        let plan = try AdvertisingPlanner.plan(AdvertisingContent(
            localName: "Environment-Sensor-12", serviceUUIDs: [BluetoothUUID(0x180F), BluetoothUUID(0x181A)]))
        // Flags, then one complete 16-bit list; 21 name bytes + 2 do not fit the remaining 22.
        #expect(plan.advertisingData.hexString == "020106" + "05030f181a18")
        #expect(plan.scanResponseData == [22, 0x09] + Array("Environment-Sensor-12".utf8))
    }

    @Test func sixteenAnd128BitListsAreSeparateStructures() throws {
        let plan = try AdvertisingPlanner.plan(AdvertisingContent(serviceUUIDs: [BluetoothUUID(0x180D), nus]))
        #expect(plan.advertisingData.hexString == "020106" + "03030d18" + "1107" + nus.littleEndian128.hexString)
        #expect(plan.omittedServiceUUIDs.isEmpty)
    }

    @Test func uuidsThatDoNotFitOverflowThenAreReported() throws {
        let other = BluetoothUUID("12345678-1234-5678-1234-56789ABCDEF0")!
        let third = BluetoothUUID("0000AAAA-1234-5678-1234-56789ABCDEF0")!
        let plan = try AdvertisingPlanner.plan(AdvertisingContent(serviceUUIDs: [nus, other, third]))
        // One 128-bit UUID fits after the flags: incomplete list. The next fits the scan response.
        #expect(Array(plan.advertisingData[3...4]) == [17, ADType.incompleteList128])
        #expect(Array(plan.scanResponseData[0...1]) == [17, ADType.incompleteList128])
        #expect(Array(plan.scanResponseData[2...]) == other.littleEndian128)
        #expect(plan.omittedServiceUUIDs == [third])
    }

    @Test func longNamesAreShortenedAtACharacterBoundary() throws {
        let name = "capteur-température-serre-nord-Ω"
        let plan = try AdvertisingPlanner.plan(AdvertisingContent(localName: name))
        let structures = try ADStructure.parse(plan.scanResponseData)
        let shortened = try #require(structures.first)
        #expect(shortened.type == ADType.shortenedLocalName)
        #expect(shortened.data.count <= 29)
        #expect(String(validating: shortened.data, as: UTF8.self) != nil)
        #expect(name.utf8.starts(with: shortened.data))
        #expect(plan.nameShortened)
    }

    @Test func extrasThatCannotFitAnywhereAreAClearError() {
        let huge = AdvertisingContent(manufacturerData: .init(companyIdentifier: 0xFFFF, data: [UInt8](repeating: 1, count: 30)))
        #expect(throws: AdvertisingDataError.doesNotFit(item: "manufacturer data", bytes: 34)) { try AdvertisingPlanner.plan(huge) }
        let crowded = AdvertisingContent(serviceData: [
            .init(uuid: BluetoothUUID(0x181A), data: [UInt8](repeating: 0, count: 24)),
            .init(uuid: BluetoothUUID(0x180F), data: [UInt8](repeating: 0, count: 25)),
            .init(uuid: BluetoothUUID(0x180D), data: [UInt8](repeating: 0, count: 25)),
        ])
        #expect(throws: AdvertisingDataError.self) { try AdvertisingPlanner.plan(crowded) }
    }

    @Test func appearanceTxPowerAndManufacturerData() throws {
        let plan = try AdvertisingPlanner.plan(AdvertisingContent(
            localName: "HR", appearance: 0x0341, txPowerLevel: -4,
            manufacturerData: .init(companyIdentifier: 0x05F1, data: [0x01, 0x02])))
        #expect(plan.advertisingData.hexString == "020106" + "03094852" + "03194103" + "020afc" + "05fff1050102")
    }

    @Test func parsingIsTotal() {
        #expect(throws: AdvertisingDataError.malformed(offset: 0, reason: "structure length 5 runs past the end of 3 bytes")) {
            try ADStructure.parse([5, 1, 2])
        }
        #expect((try? ADStructure.parse([2, 1, 6, 0, 0xFF])) == [ADStructure(type: 1, data: [6])])
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let bytes = (0..<Int.random(in: 0...31, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            _ = try? ADStructure.parse(bytes)
        }
    }
}

/// A broadcast (BTHome) puts its service data right after the flags; what no longer fits moves on.
@Suite struct BroadcastPlacementTests {
    let uuids = [BluetoothUUID(0x180D), BluetoothUUID(0x1809), BluetoothUUID(0x181A)]

    @Test func serviceDataFirstThenTheUUIDsWhenTheyFit() throws {
        // A clear BTHome packet: 4 + 15 octets after the flags, then the 8-octet UUID list: 30 of 31.
        let data = [UInt8](repeating: 0x40, count: 15)
        var content = AdvertisingContent(localName: "blesensor", serviceUUIDs: uuids, serviceData: [.init(uuid: BluetoothUUID(0xFCD2), data: data)])
        content.serviceDataFirst = true
        let plan = try AdvertisingPlanner.plan(content)
        #expect(plan.advertisingData.hexString == "020106" + "1216d2fc" + data.hexString + "07030d1809181a18")
        #expect(plan.scanResponseData.hexString == "0a09" + Array("blesensor".utf8).hexString)
    }

    @Test func aFullPacketMovesTheUUIDsAndNameToTheScanResponse() throws {
        // An encrypted packet: 4 + 23 octets leave one octet after the flags.
        let data = [UInt8](repeating: 0x41, count: 23)
        var content = AdvertisingContent(localName: "blesensor", serviceUUIDs: uuids, serviceData: [.init(uuid: BluetoothUUID(0xFCD2), data: data)])
        content.serviceDataFirst = true
        let plan = try AdvertisingPlanner.plan(content)
        #expect(plan.advertisingData.hexString == "020106" + "1a16d2fc" + data.hexString)
        #expect(plan.scanResponseData.hexString == "07030d1809181a18" + "0a09" + Array("blesensor".utf8).hexString)
        #expect(plan.omittedServiceUUIDs.isEmpty)
        // Without the flag the UUIDs keep their place and the service data goes where it fits.
        content.serviceDataFirst = false
        #expect(try AdvertisingPlanner.plan(content).advertisingData.prefix(11).hexString == "020106" + "07030d1809181a18")
    }

    /// Phones filter on the UUIDs: with the advertising packet full they come first in the scan
    /// response, and a long name is shortened rather than pushing a 128-bit UUID out.
    @Test func overflowingUUIDsGoBeforeALongName() throws {
        let data = [UInt8](repeating: 0x41, count: 23)
        let custom = try #require(BluetoothUUID("12345678-1234-5678-1234-56789ABCDEF0"))
        var content = AdvertisingContent(localName: "blesensor-kitchen-window", serviceUUIDs: [custom],
                                         serviceData: [.init(uuid: BluetoothUUID(0xFCD2), data: data)])
        content.serviceDataFirst = true
        let plan = try AdvertisingPlanner.plan(content)
        #expect(plan.omittedServiceUUIDs.isEmpty)
        #expect(plan.scanResponseData.prefix(2).hexString == "1107")
        #expect(Array(plan.scanResponseData[2..<18]) == custom.littleEndian128)
        // 31 − 18 = 13 octets left: a shortened name of 11 bytes.
        #expect(plan.scanResponseData.suffix(13).hexString == "0c08" + Array("blesensor-k".utf8).hexString)
        #expect(plan.nameShortened)
    }
}
