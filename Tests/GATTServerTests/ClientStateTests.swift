import ATT
import BLECore
import GATT
import GATTServer
import HCI
import Testing
import TestSupport

/// Snapshots and restoration of a client's state, which the bonding layer carries across links.
@Suite(.scaledTimeLimit(minutes: 1)) struct ClientStateTests {
    static func le(_ handle: UInt16) -> String { String(format: "%02x%02x", handle & 0xFF, handle >> 8) }

    @Test func whatTheClientDidOnThisLinkWinsOverTheRestoredState() async throws {
        let harness = try Harness()
        let measurement = try #require(harness.server.database.cccdHandle(for: TestDatabase.measurement))
        // Before the restore the client turned notifications off (a write of zero) and declared multiple notifications.
        #expect(await harness.exchange("12 \(Self.le(measurement)) 0000", on: 1) == "13")
        #expect(await harness.exchange("12 0d00 04", on: 1) == "13")
        let stored = GATTClientState(configurations: [TestDatabase.measurement: .notifications, TestDatabase.alert: .indications],
                                     clientSupportedFeatures: [0x01], changeAware: false)
        let restored = try #require(harness.server.restoreClientState(stored, on: harness.link(1)))
        #expect(restored.map(\.0) == [TestDatabase.alert])
        #expect(harness.delegate.subscriptions.map(\.characteristic) == [TestDatabase.alert])
        #expect(harness.subscribers(of: TestDatabase.measurement).isEmpty)
        #expect(harness.subscribers(of: TestDatabase.alert) == [1: .indications])
        #expect(harness.server.clientState(of: harness.link(1))
                == GATTClientState(configurations: [TestDatabase.alert: .indications], clientSupportedFeatures: [0x05], changeAware: false))
        // Nothing leaks to the other link, and a link the server does not serve restores nothing.
        #expect(harness.server.clientState(of: harness.link(2)) == GATTClientState())
        #expect(harness.server.restoreClientState(stored, on: Harness.makeLink(9)) == nil)
    }

    @Test func aSubscriptionThatNeedsEncryptionIsNotRestoredOntoAnUnencryptedLink() async throws {
        let sealed: CharacteristicID = "custom.sealed"
        let database = try AttributeDatabase.build(services: [
            GATTService(uuid: TestDatabase.customService, characteristics: [
                GATTCharacteristic(id: sealed, uuid: TestDatabase.secureUUID, properties: [.read, .notify],
                                   permissions: [.readable, .readEncryptionRequired]),
                GATTCharacteristic(id: TestDatabase.alert, uuid: TestDatabase.indicateUUID, properties: .indicate, permissions: []),
            ]),
        ], builtInServices: BuiltInServices(deviceName: "blesensor", appearance: 0))
        let harness = try Harness(database: database)
        let stored = GATTClientState(configurations: [sealed: .notifications, TestDatabase.alert: .indications])
        #expect(harness.server.restoreClientState(stored, on: harness.link(1))?.map(\.0) == [TestDatabase.alert])
        harness.encrypt(2, keySize: 16)
        #expect(harness.server.restoreClientState(stored, on: harness.link(2))?.map(\.0).sorted { $0.rawValue < $1.rawValue }
                == [TestDatabase.alert, sealed])
    }
}
