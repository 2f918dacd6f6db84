import ATT
import BLECore
import GATT
import GATTServer
import Testing

@Suite(.timeLimit(.minutes(1))) struct ProtocolTests {
    @Test func unknownRequestsAreNotSupportedAndUnknownCommandsIgnored() async throws {
        let harness = try Harness()
        #expect(await harness.exchange("3f 0102") == h("01 3f 0000 06"))
        #expect(await harness.exchange("22") == h("01 22 0000 06"))
        #expect(await harness.expectSilence(after: "7f 0102"))
        #expect(await harness.expectSilence(after: "ff 01"))
    }

    @Test func truncatedRequestsAreInvalidPDU() async throws {
        let harness = try Harness()
        #expect(await harness.exchange("0a 01") == h("01 0a 0000 04"))
        #expect(await harness.exchange("0a 010000") == h("01 0a 0000 04"))
        #expect(await harness.exchange("0c 1e00") == h("01 0c 0000 04"))
        #expect(await harness.exchange("02 17") == h("01 02 0000 04"))
        #expect(await harness.exchange("04 0100") == h("01 04 0000 04"))
        #expect(await harness.exchange("10 0100 ffff 00") == h("01 10 0000 04"))
        #expect(await harness.exchange("08 0100 ffff 000000") == h("01 08 0000 04"))
        #expect(await harness.exchange("0e 1500") == h("01 0e 0000 04"))
        #expect(await harness.exchange("12 15") == h("01 12 0000 04"))
        #expect(await harness.exchange("16 1a00 00") == h("01 16 0000 04"))
        #expect(await harness.exchange("18 02") == h("01 18 0000 04"))
        #expect(await harness.exchange("18") == h("01 18 0000 04"))
        // Truncated commands and an empty PDU get nothing; the connection keeps working.
        #expect(await harness.expectSilence(after: "52 1a"))
        #expect(await harness.expectSilence(after: "d2 1a00 01"))
        #expect(await harness.expectSilence(after: ""))
        #expect(harness.delegate.writes.isEmpty)
        #expect(harness.server.mtu(of: 1) == 23)
    }

    @Test func responsesAndServerPDUsFromTheClientAreIgnored() async throws {
        let harness = try Harness()
        #expect(await harness.expectSilence(after: "01 0a 0300 02"))
        #expect(await harness.expectSilence(after: "0b 0102"))
        #expect(await harness.expectSilence(after: "13"))
        #expect(await harness.expectSilence(after: "1b 0300 01"))
        #expect(await harness.expectSilence(after: "1d 0300 01"))
        #expect(await harness.expectSilence(after: "03 1700"))
        #expect(harness.server.mtu(of: 1) == 23)
    }

    @Test func confirmationsReachTheDelegate() async throws {
        let harness = try Harness()
        #expect(await harness.expectSilence(after: "1e", on: 2))
        #expect(harness.delegate.confirmations == [2])
        // A malformed confirmation is not one.
        #expect(await harness.expectSilence(after: "1e 00", on: 2))
        #expect(harness.delegate.confirmations == [2])
    }

    @Test func aRequestBehindASlowOneIsAnsweredAfterItWhileOtherConnectionsGoOn() async throws {
        let harness = try Harness()
        harness.delegate.setValue([0x12, 0x34], for: TestDatabase.setpoint)
        harness.delegate.gate(TestDatabase.setpoint)
        harness.feed("0a 1a00", on: 1)
        #expect(await harness.delegate.waitUntilGated() == TestDatabase.setpoint)
        harness.feed("0a 1500", on: 1)
        harness.feed("12 1300 0100", on: 1)
        // Connection 2 is not held back.
        #expect(await harness.exchange("0a 0500", on: 2) == h("0b 4103"))
        #expect(harness.outbox.pending.isEmpty)
        #expect(harness.server.configuration(of: TestDatabase.measurement, on: 1) == [])
        harness.delegate.release()
        #expect(await harness.outbox.next() == .init(connection: 1, hex: h("0b 1234")))
        #expect(await harness.outbox.next() == .init(connection: 1, hex: "0b01"))
        #expect(await harness.outbox.next() == .init(connection: 1, hex: "13"))
        #expect(harness.server.configuration(of: TestDatabase.measurement, on: 1) == .notifications)
    }

    @Test func noAnswerAfterTheConnectionClosed() async throws {
        let harness = try Harness()
        harness.delegate.gate(TestDatabase.setpoint)
        harness.feed("0a 1a00", on: 1)
        #expect(await harness.delegate.waitUntilGated() == TestDatabase.setpoint)
        harness.feed("0a 1500", on: 1)
        harness.server.connectionClosed(1)
        harness.delegate.release()
        // The next PDU sent is connection 2's answer, nothing for the closed link.
        #expect(await harness.exchange("0a 1500", on: 2) == "0b01")
        #expect(harness.outbox.pending.isEmpty)
        #expect(!harness.server.openConnections.contains(1))
        // PDUs on a closed connection are dropped.
        harness.feed("0a 1500", on: 1)
        #expect(await harness.exchange("0a 1500", on: 2) == "0b01")
    }
}
