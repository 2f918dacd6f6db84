import BLECore
import Testing
@testable import GATT

@Suite struct QueryTests {
    @Test func attributeLookupByHandle() throws {
        let db = try Fixtures.sampleDatabase()
        #expect(db.attribute(at: 0x0000) == nil)
        #expect(db.attribute(at: 0x0001)?.type == GATTUUID.primaryService)
        #expect(db.attribute(at: 0x0027)?.type == GATTUUID.clientCharacteristicConfiguration)
        #expect(db.attribute(at: 0x0028) == nil)
        #expect(db.attribute(at: 0xFFFF) == nil)
    }

    @Test func attributeRangesAreSortedAndClamped() throws {
        let db = try Fixtures.sampleDatabase()
        #expect(db.attributes(in: 0x0010...0x0013).map(\.handle) == [0x10, 0x11, 0x12, 0x13])
        #expect(db.attributes(in: 0x0000...0xFFFF).map(\.handle) == Array(1...0x27))
        #expect(db.attributes(in: 0x0025...0xFFFF).map(\.handle) == [0x25, 0x26, 0x27])
        #expect(db.attributes(in: 0x0028...0xFFFF).isEmpty)
        #expect(db.attributes(in: 0x0000...0x0000).isEmpty)
        #expect(db.attributes(in: 0x0005...0x0005).map(\.handle) == [5])
    }

    @Test func serviceGroupsWithEndGroupHandles() throws {
        let db = try Fixtures.sampleDatabase()
        let primary = db.serviceGroups(type: .primary)
        #expect(primary.map(\.uuid) == [GATTUUID.genericAccessService, GATTUUID.genericAttributeService,
                                         BluetoothUUID(0x180D), Fixtures.customService])
        #expect(primary.map(\.startHandle) == [0x0001, 0x0008, 0x0010, 0x0018])
        #expect(primary.map(\.endGroupHandle) == [0x0007, 0x000F, 0x0017, 0x0020])
        let secondary = db.serviceGroups(type: .secondary)
        #expect(secondary.map(\.handles) == [0x0021...0x0023, 0x0024...0x0027])
        #expect(db.serviceGroup(containing: 0x0022)?.uuid == Fixtures.secondaryCustom)
        #expect(db.serviceGroup(containing: 0x0028) == nil)
    }

    @Test func characteristicLookups() throws {
        let db = try Fixtures.sampleDatabase()
        let measurement = try #require(db.characteristic(forValueHandle: 0x0012))
        #expect(measurement.id == "hr.measurement")
        #expect(measurement.serviceUUID == BluetoothUUID(0x180D))
        #expect(measurement.declarationHandle == 0x0011 && measurement.endHandle == 0x0013)
        #expect(db.characteristic(forValueHandle: 0x0011) == nil)
        #expect(db.characteristic(containing: 0x0013)?.id == "hr.measurement")
        #expect(db.valueHandle(for: "battery.level") == 0x0026)
        #expect(db.cccdHandle(for: "battery.level") == 0x0027)
        #expect(db.valueHandle(for: "missing") == nil)
        #expect(db.characteristics(withUUID: BluetoothUUID(0x2A38)).map(\.valueHandle) == [0x0015])
        #expect(db.characteristics(withUUID: BluetoothUUID(0x2A99)).isEmpty)
        #expect(db.valueHandle(for: .deviceName) == 0x0003)
        #expect(db.valueHandle(for: .serviceChanged) == 0x000A)
    }
}
