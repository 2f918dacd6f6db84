import BLECore
import Testing
@testable import GATT

@Suite struct ServiceChangedTests {
    @Test func identicalDatabasesNeedNoIndication() throws {
        #expect(ServiceChangedRange.affected(from: try Fixtures.sampleDatabase(), to: try Fixtures.sampleDatabase()) == nil)
    }

    @Test func addingAServiceAtTheEndCoversOnlyTheNewService() throws {
        let old = try Fixtures.heartRateDatabase()
        let new = try AttributeDatabase.build(services: [Fixtures.heartRate, Fixtures.battery], builtInServices: Fixtures.builtIns)
        #expect(old.databaseHash != new.databaseHash)
        #expect(ServiceChangedRange.affected(from: old, to: new) == 0x0018...0x001B)
        #expect(ServiceChangedRange.affected(from: new, to: old) == 0x0018...0x001B)
    }

    @Test func changeInsideAServiceWidensToTheWholeGroup() throws {
        let old = try Fixtures.sampleDatabase()
        var heartRate = Fixtures.heartRate
        heartRate.characteristics[2].uuid = BluetoothUUID(0x2A3F)
        let new = try AttributeDatabase.build(services: [heartRate, Fixtures.custom, Fixtures.secondary, Fixtures.battery],
                                              builtInServices: Fixtures.builtIns)
        #expect(ServiceChangedRange.affected(from: old, to: new) == 0x0010...0x0017)
    }

    @Test func shiftedServicesAreAllAffected() throws {
        let old = try Fixtures.sampleDatabase()
        var heartRate = Fixtures.heartRate
        heartRate.characteristics[0].descriptors = [.userDescription("bpm")]
        let new = try AttributeDatabase.build(services: [heartRate, Fixtures.custom, Fixtures.secondary, Fixtures.battery],
                                              builtInServices: Fixtures.builtIns)
        #expect(ServiceChangedRange.affected(from: old, to: new) == 0x0010...0x0028)
    }

    @Test func valueEncoding() {
        #expect(ServiceChangedRange.value(for: 0x0010...0x0128) == [0x10, 0x00, 0x28, 0x01])
    }
}
