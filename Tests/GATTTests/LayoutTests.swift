import BLECore
import Testing
@testable import GATT

@Suite struct LayoutTests {
    /// Expected table written out from Core Vol 3 Part G 3.1–3.3 (declaration value formats).
    @Test func heartRateDatabaseIsByteExact() throws {
        let db = try Fixtures.heartRateDatabase()
        let expected: [(UInt16, UInt16, String)] = [
            (0x0001, 0x2800, "0018"),
            (0x0002, 0x2803, "020300002a"),
            (0x0003, 0x2A00, Array("blesensor".utf8).hexString),
            (0x0004, 0x2803, "020500012a"),
            (0x0005, 0x2A01, "4103"),
            (0x0006, 0x2803, "020700042a"),
            (0x0007, 0x2A04, "ffffffff0000ffff"),
            (0x0008, 0x2800, "0118"),
            (0x0009, 0x2803, "200a00052a"),
            (0x000C, 0x2803, "0a0d00292b"),
            (0x000E, 0x2803, "020f002a2b"),
            (0x0010, 0x2800, "0d18"),
            (0x0011, 0x2803, "101200372a"),
            (0x0014, 0x2803, "021500382a"),
            (0x0015, 0x2A38, "01"),
            (0x0016, 0x2803, "081700392a"),
        ]
        for (handle, type, value) in expected {
            let attribute = try #require(db.attribute(at: handle))
            #expect(attribute.type == BluetoothUUID(type), "handle \(handle)")
            #expect(attribute.value == .fixed(Fixtures.hex(value)), "handle \(handle)")
        }
        #expect(db.lastHandle == 0x0017)
        #expect(db.attribute(at: 0x000A)?.value == .characteristicValue(.serviceChanged))
        #expect(db.attribute(at: 0x000B)?.type == GATTUUID.clientCharacteristicConfiguration)
        #expect(db.attribute(at: 0x000B)?.value == .clientCharacteristicConfiguration(.serviceChanged))
        #expect(db.attribute(at: 0x000D)?.value == .characteristicValue(.clientSupportedFeatures))
        #expect(db.attribute(at: 0x0012)?.value == .characteristicValue("hr.measurement"))
        #expect(db.attribute(at: 0x0013)?.value == .clientCharacteristicConfiguration("hr.measurement"))
        #expect(db.attribute(at: 0x0017)?.value == .characteristicValue("hr.control"))
        #expect(db.cccdHandle(for: "hr.measurement") == 0x0013)
        #expect(db.cccdHandle(for: .serviceChanged) == 0x000B)
        #expect(db.cccdHandle(for: "hr.location") == nil)
        // The hash is stored as the Database Hash value, and permissions follow the declaration.
        #expect(db.attribute(at: 0x000F)?.value == .fixed(db.databaseHash))
        #expect(db.attribute(at: 0x0013)?.permissions == [.readable, .writeable])
        #expect(db.attribute(at: 0x0017)?.permissions == .writeable)
    }

    @Test func declarationsAreReadOnlyWithoutSecurity() throws {
        let db = try Fixtures.sampleDatabase()
        let declarationTypes: Set<BluetoothUUID> = [GATTUUID.primaryService, GATTUUID.secondaryService,
                                                    GATTUUID.include, GATTUUID.characteristic]
        let declarations = db.attributes.filter { declarationTypes.contains($0.type) }
        #expect(declarations.count == 20)
        #expect(declarations.allSatisfy { $0.permissions == .readable })
    }

    @Test func includeDeclarationsCarryRangeAndOnly16BitUUIDs() throws {
        let db = try Fixtures.sampleDatabase()
        #expect(db.attribute(at: 0x0018)?.value == .fixed(Fixtures.customService.littleEndian128))
        // 128-bit included service: handles only (Core Vol 3 Part G 3.2).
        #expect(db.attribute(at: 0x0019)?.type == GATTUUID.include)
        #expect(db.attribute(at: 0x0019)?.value == .fixed(Fixtures.hex("21002300")))
        #expect(db.attribute(at: 0x001A)?.value == .fixed(Fixtures.hex("240027000f18")))
        #expect(db.attribute(at: 0x0021)?.type == GATTUUID.secondaryService)
        #expect(db.attribute(at: 0x0024)?.value == .fixed(Fixtures.hex("0f18")))
    }

    @Test func characteristicWith128BitUUIDAndGeneratedDescriptors() throws {
        let db = try Fixtures.sampleDatabase()
        let declaration = try #require(db.attribute(at: 0x001B))
        #expect(declaration.value == .fixed([0x8A, 0x1C, 0x00] + Fixtures.customCharacteristic.littleEndian128))
        #expect(db.attribute(at: 0x001D)?.value == .extendedProperties(.reliableWrite))
        #expect(db.attribute(at: 0x001D)?.value.knownBytes == [0x01, 0x00])
        #expect(db.attribute(at: 0x001E)?.value == .fixed(Array("Setpoint".utf8)))
        #expect(db.attribute(at: 0x001F)?.value == .fixed(Fixtures.hex("0efe2f27010000")))
        #expect(db.attribute(at: 0x0020)?.type == BluetoothUUID(0x290C))
        let entry = try #require(db.characteristic(id: "custom.setpoint"))
        #expect(entry.properties == [.read, .write, .extendedProperties])
        #expect(entry.declarationHandle == 0x001B && entry.valueHandle == 0x001C && entry.endHandle == 0x0020)
        #expect(entry.cccdHandle == nil)
    }

    @Test func indicateAndBroadcastGenerateCCCDAndSCCD() throws {
        let service = GATTService(uuid: BluetoothUUID(0xFFF0), characteristics: [
            GATTCharacteristic(id: "both", uuid: BluetoothUUID(0xFFF1), properties: [.broadcast, .read, .notify, .indicate],
                               permissions: [.readable, .readEncryptionRequired]),
        ])
        let db = try AttributeDatabase.build(services: [service], builtInServices: nil)
        #expect(db.attribute(at: 0x0002)?.value == .fixed(Fixtures.hex("330300f1ff")))
        #expect(db.attribute(at: 0x0004)?.type == GATTUUID.clientCharacteristicConfiguration)
        // Subscribing demands the security that reading demands.
        #expect(db.attribute(at: 0x0004)?.permissions == [.readable, .writeable, .writeEncryptionRequired])
        #expect(db.attribute(at: 0x0005)?.type == GATTUUID.serverCharacteristicConfiguration)
        #expect(db.characteristic(id: "both")?.sccdHandle == 0x0005)
        #expect(db.lastHandle == 5)
    }

    @Test func derivedIdentifiersAreStableAndDistinct() throws {
        let service = GATTService(uuid: BluetoothUUID(0xFFF0), characteristics: [
            GATTCharacteristic(uuid: BluetoothUUID(0xFFF1), properties: .notify, permissions: []),
            GATTCharacteristic(uuid: BluetoothUUID(0xFFF1), properties: .notify, permissions: []),
        ])
        let db = try AttributeDatabase.build(services: [service], builtInServices: nil)
        #expect(db.characteristics.map(\.id) == ["FFF0/FFF1", "FFF0/FFF1#2"])
        #expect(db.valueHandle(for: "FFF0/FFF1#2") == 0x0006)
    }

    @Test func optionalBuiltInCharacteristics() throws {
        let builtIns = BuiltInServices(deviceName: "x", preferredConnectionParameters: nil, serverSupportedFeatures: 0x01)
        let db = try AttributeDatabase.build(services: [], builtInServices: builtIns)
        #expect(db.characteristic(id: .peripheralPreferredConnectionParameters) == nil)
        let features = try #require(db.characteristic(id: .serverSupportedFeatures))
        #expect(db.attribute(at: features.valueHandle)?.value == .fixed([0x01]))
        #expect(db.serviceGroups.map(\.handles) == [0x0001...0x0005, 0x0006...0x000F])
    }
}
