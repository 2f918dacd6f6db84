import ATT
import BLECore
import GATT
import GATTServer
import Testing
import TestSupport

/// The 128-bit UUID as it appears on the air (little-endian), as hex.
func le(_ uuid: BluetoothUUID) -> String { uuid.littleEndian128.hexString }

@Suite(.scaledTimeLimit(minutes: 1)) struct LayoutAndMTUTests {
    @Test func fixtureHandlesAreTheOnesTheTestsUse() throws {
        let database = try TestDatabase.make()
        #expect(database.lastHandle == 0x23)
        #expect(database.valueHandle(for: .serviceChanged) == 0x0A)
        #expect(database.cccdHandle(for: .serviceChanged) == 0x0B)
        #expect(database.valueHandle(for: .clientSupportedFeatures) == 0x0D)
        #expect(database.valueHandle(for: .databaseHash) == 0x0F)
        #expect(database.cccdHandle(for: TestDatabase.measurement) == 0x13)
        #expect(database.valueHandle(for: TestDatabase.location) == 0x15)
        #expect(database.valueHandle(for: TestDatabase.control) == 0x17)
        #expect(database.valueHandle(for: TestDatabase.setpoint) == 0x1A)
        #expect(database.valueHandle(for: TestDatabase.long) == 0x1E)
        #expect(database.valueHandle(for: TestDatabase.secure) == 0x20)
        #expect(database.cccdHandle(for: TestDatabase.alert) == 0x23)
        #expect(le(TestDatabase.setpointUUID) == "a1000000000000800040000078563412")
    }

    @Test func exchangeMTUAnswersOurRxMTUAndKeepsTheSmaller() async throws {
        let harness = try Harness()
        #expect(harness.link(1).mtu == 23)
        // Client Rx MTU 512, ours 247 (0x00F7).
        #expect(await harness.exchange("02 0002") == "03f700")
        #expect(harness.link(1).mtu == 247)
        #expect(harness.link(2).mtu == 23)
        #expect(harness.delegate.mtuChanges(1) == [247])
        // A long read now carries MTU − 1 = 246 octets.
        #expect(await harness.exchange("0a 1e00") == "0b" + TestDatabase.longValue.prefix(246).hexString)
    }

    @Test func aRepeatedExchangeIsAnsweredButTheFirstMTUStays() async throws {
        let harness = try Harness()
        #expect(await harness.exchange("02 6400") == "03f700")
        #expect(harness.link(1).mtu == 100)
        #expect(await harness.exchange("02 0002") == "03f700")
        #expect(harness.link(1).mtu == 100)
        #expect(harness.delegate.mtuChanges(1) == [100])
    }

    @Test func aClientMTUBelowTheDefaultLeavesTheDefault() async throws {
        let harness = try Harness()
        #expect(await harness.exchange("02 1000") == "03f700")
        #expect(harness.link(1).mtu == 23)
        // The first exchange is always reported, even when the MTU stays 23.
        #expect(harness.delegate.mtuChanges(1) == [23])
    }

    @Test func theConfiguredMTUIsClampedTo517() async throws {
        var configuration = GATTServer.Configuration()
        configuration.mtu = 9000
        let harness = try Harness(configuration: configuration)
        #expect(await harness.exchange("02 5802") == "030502")
        #expect(harness.link(1).mtu == 517)
    }

    @Test func theMTUIsPerConnectionAndEndsWithIt() async throws {
        let harness = try Harness()
        #expect(await harness.exchange("02 0002", on: 2) == "03f700")
        #expect(harness.link(2).mtu == 247)
        #expect(harness.link(1).mtu == 23)
        harness.close(2)
        harness.open(2)
        #expect(harness.link(2).mtu == 23)
    }
}
