import BLECore
import Testing
@testable import GATT

@Suite struct ClientConfigurationStoreTests {
    @Test func writesAreValidatedAgainstProperties() throws {
        var store = ClientConfigurationStore<UInt16>(database: try Fixtures.sampleDatabase())
        #expect(store.write(0x0001, to: "hr.measurement", for: 0x40) == .updated(previous: [], current: .notifications))
        #expect(store.write(0x0001, to: "hr.measurement", for: 0x40) == .unchanged(.notifications))
        #expect(store.write(0x0002, to: "hr.measurement", for: 0x40)
                == .improperlyConfigured(requested: 0x0002, allowed: .notifications))
        #expect(store.write(0x0004, to: "hr.measurement", for: 0x40)
                == .improperlyConfigured(requested: 0x0004, allowed: .notifications))
        #expect(store.write(0x0002, to: .serviceChanged, for: 0x40) == .updated(previous: [], current: .indications))
        #expect(store.write(0x0001, to: "hr.location", for: 0x40) == .unknownCharacteristic("hr.location"))
        #expect(store.configuration(of: "hr.measurement", for: 0x40) == .notifications)
        #expect(store.configuration(of: "hr.measurement", for: 0x41) == [])
        #expect(store.write(0x0000, to: "hr.measurement", for: 0x40) == .updated(previous: .notifications, current: []))
        #expect(store.configuration(of: "hr.measurement", for: 0x40) == [])
    }

    @Test func stateIsPerPeer() throws {
        var store = ClientConfigurationStore<UInt16>(database: try Fixtures.sampleDatabase())
        _ = store.write(0x0001, to: "battery.level", for: 1)
        _ = store.write(0x0000, to: "battery.level", for: 2)
        #expect(store.subscribers(of: "battery.level") == [1: .notifications])
        _ = store.write(0x0001, to: "battery.level", for: 2)
        #expect(store.subscribers(of: "battery.level") == [1: .notifications, 2: .notifications])
        #expect(store.subscribers(of: "battery.level", modes: .indications).isEmpty)
    }

    @Test func bondedPeersCollectChangesWhileAway() throws {
        var store = ClientConfigurationStore<String>(database: try Fixtures.sampleDatabase())
        _ = store.write(0x0001, to: "hr.measurement", for: "bonded")
        _ = store.write(0x0001, to: "battery.level", for: "bonded")
        _ = store.write(0x0001, to: "hr.measurement", for: "guest")
        store.peerDisconnected("bonded", bonded: true)
        store.peerDisconnected("guest", bonded: false)
        #expect(store.isAbsent("bonded"))
        #expect(store.subscribers(of: "hr.measurement").isEmpty)
        #expect(store.configuration(of: "hr.measurement", for: "guest") == [])
        store.valueChanged("hr.measurement")
        store.valueChanged("custom.setpoint")
        #expect(store.peerReconnected("bonded") == ["hr.measurement"])
        #expect(!store.isAbsent("bonded"))
        #expect(store.configuration(of: "battery.level", for: "bonded") == .notifications)
        #expect(store.peerReconnected("bonded").isEmpty)
        store.forget("bonded")
        #expect(store.configuration(of: "hr.measurement", for: "bonded") == [])
    }

    @Test func decodesTheWireValue() {
        #expect(ClientConfiguration(littleEndian: [0x02, 0x00]) == .indications)
        #expect(ClientConfiguration(littleEndian: [0x03, 0x00]) == [.notifications, .indications])
        #expect(ClientConfiguration(littleEndian: [0x01]) == nil)
        #expect(ClientConfiguration(littleEndian: [0x01, 0x00, 0x00]) == nil)
        #expect(ClientConfiguration.indications.littleEndianBytes == [0x02, 0x00])
        #expect(ClientConfiguration.allowed(by: [.read, .indicate]) == .indications)
    }
    @Test func carriedOverToANewDatabaseKeepsSurvivingCharacteristicsOnly() throws {
        var store = ClientConfigurationStore<String>(database: try Fixtures.sampleDatabase())
        _ = store.write(0x0002, to: .serviceChanged, for: "guest")
        _ = store.write(0x0001, to: "hr.measurement", for: "guest")
        _ = store.write(0x0001, to: "battery.level", for: "guest")
        _ = store.write(0x0001, to: "battery.level", for: "bonded")
        _ = store.write(0x0001, to: "hr.measurement", for: "away")
        store.peerDisconnected("bonded", bonded: true)
        store.peerDisconnected("away", bonded: true)
        store.valueChanged("battery.level")
        store.valueChanged("hr.measurement")

        // The battery service is gone in the new database; Heart Rate and the built-ins remain.
        var moved = store.carriedOver(to: try Fixtures.heartRateDatabase())
        #expect(moved.configuration(of: .serviceChanged, for: "guest") == .indications)
        #expect(moved.configuration(of: "hr.measurement", for: "guest") == .notifications)
        #expect(moved.configuration(of: "battery.level", for: "guest") == [])
        #expect(moved.write(0x0001, to: "battery.level", for: "guest") == .unknownCharacteristic("battery.level"))
        // A bonded peer whose only subscription went is forgotten; one with a surviving one keeps its flags.
        #expect(!moved.isAbsent("bonded"))
        #expect(moved.isAbsent("away"))
        #expect(moved.peerReconnected("away") == ["hr.measurement"])

        // A characteristic that keeps its id but no longer notifies loses the notification bit.
        let indicating = GATTService(uuid: BluetoothUUID(0x180D), characteristics: [
            GATTCharacteristic(id: "hr.measurement", uuid: BluetoothUUID(0x2A37), properties: .indicate, permissions: []),
        ])
        let narrowed = store.carriedOver(to: try AttributeDatabase.build(services: [indicating], builtInServices: Fixtures.builtIns))
        #expect(narrowed.configuration(of: "hr.measurement", for: "guest") == [])
        #expect(narrowed.subscribers(of: "hr.measurement").isEmpty)
        #expect(narrowed.configuration(of: .serviceChanged, for: "guest") == .indications)
    }
}
