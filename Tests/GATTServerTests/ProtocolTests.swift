import ATT
import BLECore
import GATT
import GATTServer
import L2CAP
import Synchronization
import Testing
import TestSupport

@Suite(.scaledTimeLimit(minutes: 1)) struct ProtocolTests {
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
        #expect(harness.link(1).mtu == 23)
    }

    @Test func responsesAndServerPDUsFromTheClientAreIgnored() async throws {
        let harness = try Harness()
        #expect(await harness.expectSilence(after: "01 0a 0300 02"))
        #expect(await harness.expectSilence(after: "0b 0102"))
        #expect(await harness.expectSilence(after: "13"))
        #expect(await harness.expectSilence(after: "1b 0300 01"))
        #expect(await harness.expectSilence(after: "1d 0300 01"))
        #expect(await harness.expectSilence(after: "03 1700"))
        #expect(harness.link(1).mtu == 23)
    }

    @Test func confirmationsReachTheDelegate() async throws {
        let harness = try Harness()
        #expect(await harness.expectSilence(after: "1e", on: 2))
        #expect(harness.delegate.confirmations == [2])
        // A malformed confirmation is not one.
        #expect(await harness.expectSilence(after: "1e 00", on: 2))
        #expect(harness.delegate.confirmations == [2])
    }

    @Test func commandsBehindASlowRequestRunAfterItWhileOtherLinksGoOn() async throws {
        let harness = try Harness()
        harness.delegate.setValue([0x12, 0x34], for: TestDatabase.setpoint)
        harness.delegate.gate(TestDatabase.setpoint)
        harness.feed("0a 1a00", on: 1)
        #expect(await harness.delegate.waitUntilGated() == TestDatabase.setpoint)
        // A Write Command queues behind the read; it may only take effect after the read's answer.
        harness.feed("52 1a00 5678", on: 1)
        // Link 2 is not held back.
        #expect(await harness.exchange("0a 0500", on: 2) == h("0b 4103"))
        #expect(harness.outbox.pending.isEmpty)
        #expect(harness.delegate.writes.isEmpty)
        harness.delegate.release()
        #expect(await harness.outbox.next() == .init(connection: 1, hex: h("0b 1234")))
        #expect(await harness.exchange("0a 1a00", on: 1) == h("0b 5678"))
    }

    @Test func aRequestWhileOneIsOutstandingGetsNoSecondSlot() async throws {
        let harness = try Harness()
        harness.delegate.setValue([0x12, 0x34], for: TestDatabase.setpoint)
        harness.delegate.gate(TestDatabase.setpoint)
        harness.feed("0a 1a00", on: 1)
        #expect(await harness.delegate.waitUntilGated() == TestDatabase.setpoint)
        // The client breaks the sequential rule: the extra requests are dropped, not queued.
        for _ in 0..<100 { harness.feed("0a 1500", on: 1) }
        #expect(harness.server.inboundDrops(on: harness.link(1)).requests == 100)
        harness.delegate.release()
        #expect(await harness.outbox.next() == .init(connection: 1, hex: h("0b 1234")))
        // Answered: the next request is served again.
        #expect(await harness.exchange("0a 1500", on: 1) == "0b01")
        #expect(harness.outbox.pending.isEmpty)
    }

    @Test func commandsWaitingForTheApplicationAreBounded() async throws {
        var configuration = GATTServer.Configuration()
        configuration.maxQueuedCommands = 4
        let harness = try Harness(configuration: configuration)
        harness.delegate.gate(TestDatabase.setpoint)
        harness.feed("0a 1a00", on: 1)
        #expect(await harness.delegate.waitUntilGated() == TestDatabase.setpoint)
        for value in 0..<10 { harness.feed("52 1a00 \(String(format: "%02x", value))", on: 1) }
        #expect(harness.server.inboundDrops(on: harness.link(1)).commands == 6)
        harness.delegate.release()
        _ = await harness.outbox.next()
        // The four that fit were applied in order; the last one written wins.
        #expect(await harness.exchange("0a 1a00", on: 1) == h("0b 03"))
        #expect(harness.delegate.writes.filter { $0.kind == .command }.count == 4)
    }

    @Test func aConfirmationIsNotQueuedBehindASlowRequest() async throws {
        let harness = try Harness()
        harness.delegate.gate(TestDatabase.setpoint)
        harness.feed("0a 1a00", on: 1)
        #expect(await harness.delegate.waitUntilGated() == TestDatabase.setpoint)
        harness.feed("1e", on: 1)
        // Handled on arrival, while the read still waits for the application.
        #expect(harness.delegate.confirmations == [1])
        harness.delegate.release()
        _ = await harness.outbox.next()
    }

    @Test func pdusAreCheckedAgainstTheSecurityInForceWhenTheyArrived() async throws {
        // 0x03: a slow value to hold the link's queue; 0x05: written without response, encryption required.
        let slow: CharacteristicID = "slow", locked: CharacteristicID = "locked"
        let database = try AttributeDatabase.build(services: [
            GATTService(uuid: BluetoothUUID(0xFFE0), characteristics: [
                GATTCharacteristic(id: slow, uuid: BluetoothUUID(0xFFE1), properties: .read, permissions: .readable),
                GATTCharacteristic(id: locked, uuid: BluetoothUUID(0xFFE2), properties: [.read, .writeWithoutResponse],
                                   permissions: [.readable, .writeable, .writeEncryptionRequired]),
            ]),
        ], builtInServices: BuiltInServices(deviceName: "t"))
        let slowHandle = try #require(database.valueHandle(for: slow))
        let lockedHandle = try #require(database.valueHandle(for: locked))
        let harness = try Harness(database: database)
        harness.delegate.gate(slow)
        harness.feed("0a " + hexLE(slowHandle), on: 1)
        #expect(await harness.delegate.waitUntilGated() == slow)
        // Two writes queue behind the read, one on each side of the Encryption Change: each is
        // judged by the security it arrived under, not by the security when its turn came.
        harness.feed("52 " + hexLE(lockedHandle) + " 01", on: 1)
        harness.encrypt(1, keySize: 16)
        harness.feed("52 " + hexLE(lockedHandle) + " 02", on: 1)
        harness.delegate.release()
        _ = await harness.outbox.next()
        #expect(await harness.exchange("0a " + hexLE(lockedHandle), on: 1) == h("0b 02"))
        #expect(harness.delegate.writes.map(\.items) == [[GATTWriteItem(characteristic: locked, value: [0x02])]])
    }

    @Test func noAnswerAfterTheConnectionClosed() async throws {
        let harness = try Harness()
        harness.delegate.gate(TestDatabase.setpoint)
        harness.feed("0a 1a00", on: 1)
        #expect(await harness.delegate.waitUntilGated() == TestDatabase.setpoint)
        harness.close(1)
        harness.delegate.release()
        // The next PDU sent is connection 2's answer, nothing for the closed link.
        #expect(await harness.exchange("0a 1500", on: 2) == "0b01")
        #expect(harness.outbox.pending.isEmpty)
        #expect(!harness.server.openLinks.contains(harness.link(1)))
        // PDUs on a closed connection are dropped.
        harness.feed("0a 1500", on: 1)
        #expect(await harness.exchange("0a 1500", on: 2) == "0b01")
    }
}

/// A handle as the little-endian hex a PDU carries.
func hexLE(_ handle: UInt16) -> String {
    [UInt8(handle & 0xFF), UInt8(handle >> 8)].hexString
}

@Suite(.scaledTimeLimit(minutes: 1)) struct SequentialRequestTests {
    /// The fastest client: its next request arrives while the answer to the previous one is still
    /// being handed to L2CAP. It must be served, not dropped as a second outstanding request.
    @Test func aRequestSentTheMomentTheAnswerArrivesIsServed() async throws {
        let delegate = FakeDelegate()
        let outbox = Outbox()
        let link = Harness.makeLink(1)
        let followUps = Mutex(3)
        let server = Mutex<GATTServer?>(nil)
        let made = GATTServer(database: try TestDatabase.make(), delegate: delegate, output: ATTBearer(send: { link, pdu in
            outbox.push(link.handle, pdu)
            let again = followUps.withLock { count -> Bool in
                defer { count -= 1 }
                return count > 0
            }
            if again { server.withLock { $0 }?.receive(bytes("0a 1500"), on: link) }
            return .sent
        }, waitForRoom: { _ in }))
        server.withLock { $0 = made }
        made.linkOpened(link)
        made.receive(bytes("0a 1500"), on: link)
        for _ in 0..<4 { #expect(await outbox.next()?.hex == "0b01") }
        #expect(made.inboundDrops(on: link).requests == 0)
    }
}
