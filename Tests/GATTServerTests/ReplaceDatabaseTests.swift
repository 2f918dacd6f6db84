import ATT
import BLECore
import GATT
import GATTServer
import Testing
import TestSupport

/// `TestDatabase` with the custom service replaced by a small one:
///
///     0x01…0x0F GAP and GATT as before     0x10…0x17 Heart Rate as before
///     0x18 service FEE9                    0x19/0x1A characteristic FEEA, static 42
enum ReplacementDatabase {
    static let service = BluetoothUUID(0xFEE9)
    static let answer: CharacteristicID = "replacement.answer"

    static func make() throws -> AttributeDatabase {
        let original = try TestDatabase.make()
        let heartRate = try #require(original.services.first { $0.uuid == BluetoothUUID(0x180D) })
        let replacement = GATTService(uuid: service, characteristics: [
            GATTCharacteristic(id: answer, uuid: BluetoothUUID(0xFEEA), properties: .read, permissions: .readable,
                               value: .static([0x42])),
        ])
        return try AttributeDatabase.build(services: [heartRate, replacement],
                                           builtInServices: BuiltInServices(deviceName: "blesensor", appearance: 0x0341))
    }
}

@Suite(.scaledTimeLimit(minutes: 1)) struct ReplaceDatabaseTests {
    @Test func keepsMTUFeaturesAndSurvivingCCCDsAndDropsRemovedOnes() async throws {
        let harness = try Harness()
        #expect(await harness.exchange("02 b900") == h("03 f700"))
        #expect(await harness.exchange("12 0b00 0200") == "13") // Service Changed: indications
        #expect(await harness.exchange("12 1300 0100") == "13") // Heart Rate Measurement: notifications
        #expect(await harness.exchange("12 2300 0200") == "13") // custom alert: indications
        #expect(await harness.exchange("12 0d00 04") == "13")   // Client Supported Features
        #expect(await harness.exchange("12 1300 0100", on: 2) == "13")
        #expect(harness.subscribers(of: TestDatabase.alert).keys.sorted() == [1])

        harness.server.replaceDatabase(try ReplacementDatabase.make())

        #expect(harness.server.database.lastHandle == 0x1A)
        #expect(harness.link(1).mtu == 185)
        #expect(harness.server.clientSupportedFeatures(of: harness.link(1)) == [0x04])
        #expect(harness.server.configuration(of: .serviceChanged, on: harness.link(1)) == .indications)
        #expect(harness.server.configuration(of: TestDatabase.measurement, on: harness.link(1)) == .notifications)
        #expect(harness.server.configuration(of: TestDatabase.measurement, on: harness.link(2)) == .notifications)
        #expect(harness.server.configuration(of: TestDatabase.alert, on: harness.link(1)) == [])
        #expect(harness.subscribers(of: TestDatabase.alert).isEmpty)
        // The CCCDs read back through the new database; the MTU still bounds responses.
        #expect(await harness.exchange("0a 0b00") == h("0b 0200"))
        #expect(await harness.exchange("0a 1300") == h("0b 0100"))
        #expect(await harness.exchange("0a 0d00") == h("0b 04"))
        // New handles serve the new attributes; handles past the new end are invalid.
        #expect(await harness.exchange("0a 1800") == h("0b e9fe"))
        #expect(await harness.exchange("0a 1a00") == h("0b 42"))
        #expect(await harness.exchange("0a 1e00") == h("01 0a 1e00 01"))
        #expect(await harness.exchange("0a 2300") == h("01 0a 2300 01"))
        #expect(await harness.exchange("12 2300 0200") == h("01 12 2300 01"))
        // Discovery sees the new layout.
        #expect(await harness.exchange("10 0100 ffff 0028") == h("11 06 0100 0700 0018 0800 0f00 0118 1000 1700 0d18 1800 1a00 e9fe"))
    }

    @Test func aPreparedWriteAcrossTheChangeIsNotApplied() async throws {
        let harness = try Harness()
        #expect(await harness.exchange("16 1a00 0000 aabb") == h("17 1a00 0000 aabb"))
        harness.server.replaceDatabase(try ReplacementDatabase.make())
        // The queue was emptied: executing names the handle that was queued; nothing reaches the app.
        #expect(await harness.exchange("18 01") == h("01 18 1a00 01"))
        #expect(harness.delegate.writes.isEmpty)
        // The failure is reported once; the connection's queue works again afterwards.
        #expect(await harness.exchange("18 01") == "19")
        #expect(await harness.exchange("16 1a00 0000 aa") == h("01 16 1a00 03"))
    }

    @Test func cancellingAPrepareQueueEmptiedByTheChangeSucceeds() async throws {
        let harness = try Harness()
        #expect(await harness.exchange("16 1a00 0000 aabb") == h("17 1a00 0000 aabb"))
        harness.server.replaceDatabase(try ReplacementDatabase.make())
        #expect(await harness.exchange("18 00") == "19")
        #expect(await harness.exchange("18 01") == "19")
        #expect(harness.delegate.writes.isEmpty)
    }

    @Test func aRequestInProgressFinishesAgainstTheDatabaseItStartedWith() async throws {
        let harness = try Harness()
        harness.delegate.setValue([0x12, 0x34], for: TestDatabase.setpoint)
        harness.delegate.gate(TestDatabase.setpoint)
        harness.feed("0a 1a00")
        #expect(await harness.delegate.waitUntilGated() == TestDatabase.setpoint)
        harness.server.replaceDatabase(try ReplacementDatabase.make())
        harness.delegate.release()
        // Answered as the old setpoint, though 0x1A is now another characteristic's value.
        #expect(await harness.outbox.next() == Outbox.Sent(connection: 1, hex: h("0b 1234")))
        #expect(await harness.exchange("0c 1a00 0000") == h("0d 42"))
        #expect(await harness.exchange("0c 1a00 0100") == "0d")
    }
}
