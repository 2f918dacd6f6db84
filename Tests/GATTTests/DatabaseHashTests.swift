import BLECore
import Testing
@testable import GATT

@Suite struct DatabaseHashTests {
    /// The example database of Core v5.x Vol 3 Part G Appendix B, declared through the builder.
    /// Message and CMAC as published there (also checked with Python `cryptography`).
    @Test func coreSpecificationAppendixBExample() throws {
        let services = [
            GATTService(uuid: BluetoothUUID(0x1800), characteristics: [
                GATTCharacteristic(uuid: BluetoothUUID(0x2A00), properties: [.read, .write], permissions: [.readable, .writeable]),
                GATTCharacteristic(uuid: BluetoothUUID(0x2A01), properties: .read, permissions: .readable, value: .static([0, 0])),
            ]),
            GATTService(uuid: BluetoothUUID(0x1801), characteristics: [
                GATTCharacteristic(uuid: BluetoothUUID(0x2A05), properties: .indicate, permissions: []),
                GATTCharacteristic(uuid: BluetoothUUID(0x2B29), properties: [.read, .write], permissions: [.readable, .writeable]),
                GATTCharacteristic(uuid: BluetoothUUID(0x2B2A), properties: .read, permissions: .readable),
            ]),
            GATTService(uuid: BluetoothUUID(0x1808), includedServices: [BluetoothUUID(0x180F)], characteristics: [
                GATTCharacteristic(uuid: BluetoothUUID(0x2A18), properties: [.read, .indicate, .extendedProperties], permissions: .readable),
            ]),
            GATTService(uuid: BluetoothUUID(0x180F), isPrimary: false, characteristics: [
                GATTCharacteristic(uuid: BluetoothUUID(0x2A19), properties: .read, permissions: .readable),
            ]),
        ]
        let db = try AttributeDatabase.build(services: services, builtInServices: nil)
        let message = DatabaseHash.message(for: db.attributes)
        #expect(message.hexString == """
            010000280018020003280a0300002a04000328020500012a06000028011807000328200800052a090002290a00\
            03280a0b00292b0c000328020d002a2b0e00002808180f000228140016000f1810000328a21100182a12000229\
            130000290000140001280f1815000328021600192a
            """)
        #expect(try DatabaseHash.cmac(for: db.attributes).hexString == "f1ca2d48ecf58bac8a8830bbb9fba990")
        #expect(db.databaseHash.hexString == "90a9fbb9bb30888aac8bf5ec482dcaf1")
    }

    /// Expected bytes from Tests/GATTFixtures/database_hash.py, which lays the table out by hand.
    @Test func matchesIndependentPythonComputation() throws {
        let db = try Fixtures.sampleDatabase()
        #expect(DatabaseHash.message(for: db.attributes).hexString == """
            01000028001802000328020300002a04000328020500012a06000328020700042a08000028011809000328200a00\
            052a0b0002290c0003280a0d00292b0e000328020f002a2b100000280d1811000328101200372a130002291400\
            0328021500382a16000328081700392a180000289ecadc240ee5a9e093f3a3b50100406e19000228210023001a\
            000228240027000f181b0003288a1c009ecadc240ee5a9e093f3a3b50200406e1d00002901001e0001291f0004\
            29210001289ecadc240ee5a9e093f3a3b51000406e220003280223006e2a240001280f1825000328122600192a\
            27000229
            """)
        #expect(try DatabaseHash.cmac(for: db.attributes).hexString == "f2829deb1ab7784f136ee8779af13c6c")
        #expect(db.databaseHash.hexString == "6c3cf19a77e86e134f78b71aeb9d82f2")
        let hashValueHandle = try #require(db.valueHandle(for: .databaseHash))
        #expect(db.attribute(at: hashValueHandle)?.value == .fixed(db.databaseHash))
        #expect(db.characteristic(id: .databaseHash)?.value == .static(db.databaseHash))
    }

    @Test func sameDatabaseGivesSameHash() throws {
        #expect(try Fixtures.sampleDatabase().databaseHash == Fixtures.sampleDatabase().databaseHash)
    }

    @Test func changingACharacteristicUUIDChangesTheHash() throws {
        var heartRate = Fixtures.heartRate
        heartRate.characteristics[1].uuid = BluetoothUUID(0x2A3F)
        let changed = try AttributeDatabase.build(services: [heartRate], builtInServices: Fixtures.builtIns)
        #expect(changed.databaseHash != (try Fixtures.heartRateDatabase().databaseHash))
    }

    @Test func changingValuesOrPermissionsDoesNotChangeTheHash() throws {
        var heartRate = Fixtures.heartRate
        heartRate.characteristics[1].value = .static([0x05])
        heartRate.characteristics[2].permissions = [.writeable, .writeEncryptionRequired]
        let renamed = BuiltInServices(deviceName: "other name", appearance: 0x0000)
        let changed = try AttributeDatabase.build(services: [heartRate], builtInServices: renamed)
        #expect(changed.databaseHash == (try Fixtures.heartRateDatabase().databaseHash))
    }

    @Test func addingADescriptorCoveredByTheHashChangesIt() throws {
        var heartRate = Fixtures.heartRate
        heartRate.characteristics[0].descriptors = [.userDescription("beats")]
        let changed = try AttributeDatabase.build(services: [heartRate], builtInServices: Fixtures.builtIns)
        #expect(changed.databaseHash != (try Fixtures.heartRateDatabase().databaseHash))
    }
}
