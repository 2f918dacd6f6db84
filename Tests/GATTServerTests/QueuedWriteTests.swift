import ATT
import BLECore
import GATT
import GATTServer
import Testing
import TestSupport

@Suite(.scaledTimeLimit(minutes: 1)) struct QueuedWriteTests {
    typealias Call = FakeDelegate.WriteCall

    @Test func longWriteIsEchoedAssembledAndAppliedOnce() async throws {
        let harness = try Harness()
        let value = (0..<28).map { UInt8($0) }
        let first = "16 1a00 0000" + value.prefix(18).hexString
        let second = "16 1a00 1200" + value[18...].hexString
        #expect(await harness.exchange(first) == h("17" + first.dropFirst(2)))
        #expect(await harness.exchange(second) == h("17" + second.dropFirst(2)))
        #expect(harness.delegate.writes.isEmpty)
        #expect(await harness.exchange("18 01") == "19")
        #expect(harness.delegate.writes == [
            Call(items: [GATTWriteItem(characteristic: TestDatabase.setpoint, value: value)], connection: 1, kind: .preparedExecution),
        ])
        // The queue is empty afterwards.
        #expect(await harness.exchange("18 01") == "19")
        #expect(harness.delegate.writes.count == 1)
    }

    @Test func severalHandlesAreOneBatch() async throws {
        let harness = try Harness()
        #expect(await harness.exchange("16 1a00 0000 0102") == h("17 1a00 0000 0102"))
        #expect(await harness.exchange("16 1300 0000 0100") == h("17 1300 0000 0100"))
        #expect(await harness.exchange("16 1700 0000 09") == h("17 1700 0000 09"))
        // A later part overwrites inside the value and extends it.
        #expect(await harness.exchange("16 1a00 0100 aabb") == h("17 1a00 0100 aabb"))
        #expect(await harness.exchange("18 01") == "19")
        #expect(harness.delegate.writes == [
            Call(items: [GATTWriteItem(characteristic: TestDatabase.setpoint, value: [0x01, 0xAA, 0xBB]),
                         GATTWriteItem(characteristic: TestDatabase.control, value: [0x09])],
                 connection: 1, kind: .preparedExecution),
        ])
        #expect(harness.server.configuration(of: TestDatabase.measurement, on: harness.link(1)) == .notifications)
    }

    @Test func oneInvalidEntryAppliesNothing() async throws {
        let harness = try Harness()
        #expect(await harness.exchange("16 1300 0000 0100") == h("17 1300 0000 0100"))
        #expect(await harness.exchange("16 1a00 0000 01") == h("17 1a00 0000 01"))
        // The first part of 0x17 starts at offset 5: nothing to extend.
        #expect(await harness.exchange("16 1700 0500 02") == h("17 1700 0500 02"))
        #expect(await harness.exchange("18 01") == h("01 18 1700 07"))
        #expect(harness.delegate.writes.isEmpty)
        #expect(harness.server.configuration(of: TestDatabase.measurement, on: harness.link(1)) == [])
        // The queue was dropped with the error.
        #expect(await harness.exchange("18 01") == "19")
        #expect(harness.delegate.writes.isEmpty)
    }

    @Test func executeValidatesLengthsAndValues() async throws {
        let harness = try Harness()
        // 250 + 263 = 513 octets assembled for 0x1A.
        #expect(await harness.exchange("16 1a00 0000" + String(repeating: "11", count: 250)) != nil)
        #expect(await harness.exchange("16 1a00 fa00" + String(repeating: "22", count: 263)) != nil)
        #expect(await harness.exchange("18 01") == h("01 18 1a00 0d"))
        // A CCCD assembled to three octets, behind a valid entry.
        #expect(await harness.exchange("16 1700 0000 01") != nil)
        #expect(await harness.exchange("16 1300 0000 010000") != nil)
        #expect(await harness.exchange("18 01") == h("01 18 1300 0d"))
        #expect(await harness.exchange("16 2300 0000 0100") != nil)
        #expect(await harness.exchange("18 01") == h("01 18 2300 fd"))
        #expect(harness.delegate.writes.isEmpty)
    }

    @Test func prepareChecksHandleAndPermissionsAtOnce() async throws {
        let harness = try Harness()
        #expect(await harness.exchange("16 0000 0000 01") == h("01 16 0000 01"))
        #expect(await harness.exchange("16 9900 0000 01") == h("01 16 9900 01"))
        #expect(await harness.exchange("16 1500 0000 01") == h("01 16 1500 03"))
        #expect(await harness.exchange("16 2000 0000 01") == h("01 16 2000 05"))
        #expect(await harness.exchange("18 01") == "19")
        #expect(harness.delegate.writes.isEmpty)
    }

    @Test func cancelDropsTheQueue() async throws {
        let harness = try Harness()
        #expect(await harness.exchange("16 1a00 0000 01") == h("17 1a00 0000 01"))
        #expect(await harness.exchange("18 00") == "19")
        #expect(await harness.exchange("18 01") == "19")
        #expect(harness.delegate.writes.isEmpty)
    }

    @Test func queueFullByEntriesAndByOctets() async throws {
        var configuration = GATTServer.Configuration()
        configuration.maxPreparedWrites = 2
        configuration.maxPreparedBytes = 10
        let harness = try Harness(configuration: configuration)
        #expect(await harness.exchange("16 1a00 0000 01") == h("17 1a00 0000 01"))
        #expect(await harness.exchange("16 1a00 0100 02") == h("17 1a00 0100 02"))
        #expect(await harness.exchange("16 1a00 0200 03") == h("01 16 1a00 09"))
        // The queue is per connection; the second one has its own room, but only 10 octets.
        #expect(await harness.exchange("16 1700 0000" + String(repeating: "ab", count: 11), on: 2) == h("01 16 1700 09"))
        #expect(await harness.exchange("16 1700 0000" + String(repeating: "ab", count: 10), on: 2) != nil)
        // What was queued before the full queue is still applied.
        #expect(await harness.exchange("18 01") == "19")
        #expect(harness.delegate.writes == [
            Call(items: [GATTWriteItem(characteristic: TestDatabase.setpoint, value: [0x01, 0x02])], connection: 1, kind: .preparedExecution),
        ])
    }

    @Test func aDelegateRefusalOfTheBatchKeepsServerStateToo() async throws {
        let harness = try Harness()
        harness.delegate.state.withLock { $0.writeError = ATTErrorCode(0x81) }
        #expect(await harness.exchange("16 1300 0000 0100") != nil)
        #expect(await harness.exchange("16 1a00 0000 01") != nil)
        #expect(await harness.exchange("18 01") == h("01 18 1a00 81"))
        #expect(harness.server.configuration(of: TestDatabase.measurement, on: harness.link(1)) == [])
    }

    @Test func closingTheConnectionDropsItsQueue() async throws {
        let harness = try Harness()
        #expect(await harness.exchange("16 1a00 0000 01") != nil)
        harness.close(1)
        harness.open(1)
        #expect(await harness.exchange("18 01") == "19")
        #expect(harness.delegate.writes.isEmpty)
    }
}
