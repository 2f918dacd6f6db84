import ATT
import BLECore
import GATT
import GATTServer
import TestSupport
import Testing

@Suite(.scaledTimeLimit(minutes: 1)) struct WriteTests {
    typealias Call = FakeDelegate.WriteCall

    @Test func writeRequestGoesToTheDelegate() async throws {
        let harness = try Harness()
        #expect(await harness.exchange("12 1700 0102") == "13")
        #expect(await harness.exchange("12 1c00 0a0b", on: 2) == "13")
        #expect(harness.delegate.writes == [
            Call(items: [GATTWriteItem(characteristic: TestDatabase.control, value: [1, 2])], connection: 1, kind: .request),
            Call(items: [GATTWriteItem(characteristic: TestDatabase.setpoint, descriptor: TestDatabase.validRange, value: [0x0A, 0x0B])],
                 connection: 2, kind: .request),
        ])
        // An empty value is a valid write.
        #expect(await harness.exchange("12 1a00") == "13")
        #expect(harness.delegate.writes.last?.items == [GATTWriteItem(characteristic: TestDatabase.setpoint, value: [])])
    }

    @Test func writeErrors() async throws {
        let harness = try Harness()
        #expect(await harness.exchange("12 0000 01") == h("01 12 0000 01"))
        #expect(await harness.exchange("12 2400 01") == h("01 12 2400 01"))
        // Static value, declaration, notify-only value, User Description without writable auxiliaries.
        #expect(await harness.exchange("12 1500 00") == h("01 12 1500 03"))
        #expect(await harness.exchange("12 1400 00") == h("01 12 1400 03"))
        #expect(await harness.exchange("12 1200 00") == h("01 12 1200 03"))
        #expect(await harness.exchange("12 1b00 00") == h("01 12 1b00 03"))
        #expect(await harness.exchange("12 0f00 00") == h("01 12 0f00 03"))
        // 513 octets are too long for any attribute; 512 are fine.
        #expect(await harness.exchange("12 1700" + String(repeating: "00", count: 513)) == h("01 12 1700 0d"))
        #expect(await harness.exchange("12 1700" + String(repeating: "00", count: 512)) == "13")
        #expect(harness.delegate.writes.count == 1)
    }

    @Test func aDelegateRefusalIsTheErrorResponse() async throws {
        let harness = try Harness()
        harness.delegate.state.withLock { $0.writeError = ATTErrorCode(0x80) }
        #expect(await harness.exchange("12 1a00 01") == h("01 12 1a00 80"))
        harness.delegate.state.withLock { $0.writeError = .writeRequestRejected }
        #expect(await harness.exchange("12 1700 01") == h("01 12 1700 fc"))
    }

    @Test func writeCommandHasNoResponse() async throws {
        let harness = try Harness()
        #expect(await harness.expectSilence(after: "52 1a00 aa"))
        #expect(harness.delegate.writes == [
            Call(items: [GATTWriteItem(characteristic: TestDatabase.setpoint, value: [0xAA])], connection: 1, kind: .command),
        ])
        // Failures are silent too: 2A39 lacks Write Without Response, 0x15 is read-only, 0x99 does not exist.
        #expect(await harness.expectSilence(after: "52 1700 aa"))
        #expect(await harness.expectSilence(after: "52 1500 aa"))
        #expect(await harness.expectSilence(after: "52 9900 aa"))
        harness.delegate.state.withLock { $0.writeError = ATTErrorCode(0x80) }
        #expect(await harness.expectSilence(after: "52 1a00 bb"))
        #expect(harness.delegate.writes.count == 2)
    }

    @Test func signedWriteIsDroppedWithoutAKey() async throws {
        let harness = try Harness()
        #expect(await harness.expectSilence(after: "d2 1a00 aa 010000000102030405060708"))
        #expect(harness.delegate.writes.isEmpty)
    }

    @Test func aSignedWriteIsAppliedOnlyWhenItsSignatureVerifies() async throws {
        let signed: CharacteristicID = "signed"
        let database = try AttributeDatabase.build(services: [
            GATTService(uuid: BluetoothUUID(0xFFE0), characteristics: [
                GATTCharacteristic(id: signed, uuid: BluetoothUUID(0xFFE1), properties: [.read, .authenticatedSignedWrites],
                                   permissions: [.readable, .writeable]),
            ]),
        ], builtInServices: BuiltInServices(deviceName: "t"))
        let handle = try #require(database.valueHandle(for: signed))
        let harness = try Harness(database: database)
        let good: [UInt8] = [1, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8]
        let seen = Recorder<[UInt8]>()
        harness.server.setSignedWriteVerifier(SignedWriteVerifier { _, pdu in
            seen.append(pdu)
            return Array(pdu.suffix(12)) == good
        })
        let prefix = "d2 " + hexLE(handle)
        // Commands get no answer; a read behind each is the barrier (PDUs are processed in order).
        harness.feed(prefix + " aa " + good.hexString)
        #expect(await harness.exchange("0a " + hexLE(handle)) != nil)
        harness.feed(prefix + " bb 010000000102030405060709")
        #expect(await harness.exchange("0a " + hexLE(handle)) != nil)
        // The verifier sees the whole PDU, signature included; only the verified write is applied.
        #expect(seen.all.first == bytes(prefix + " aa " + good.hexString))
        #expect(harness.delegate.writes.map(\.items) == [[GATTWriteItem(characteristic: signed, value: [0xAA])]])
        #expect(harness.delegate.writes.first?.kind == .signedCommand)
    }

    @Test func cccdWritesArePerConnection() async throws {
        let harness = try Harness()
        #expect(await harness.exchange("12 1300 0100") == "13")
        #expect(await harness.exchange("0a 1300") == h("0b 0100"))
        #expect(await harness.exchange("0a 1300", on: 2) == h("0b 0000"))
        #expect(await harness.exchange("12 2300 0200", on: 2) == "13")
        #expect(harness.server.configuration(of: TestDatabase.measurement, on: harness.link(1)) == .notifications)
        #expect(harness.server.configuration(of: TestDatabase.measurement, on: harness.link(2)) == [])
        #expect(harness.subscribers(of: TestDatabase.measurement) == [1: .notifications])
        #expect(harness.subscribers(of: TestDatabase.alert) == [2: .indications])
        // Writing the same value again is not a change.
        #expect(await harness.exchange("12 1300 0100") == "13")
        #expect(await harness.exchange("12 1300 0000") == "13")
        #expect(harness.delegate.subscriptions == [
            .init(connection: 1, characteristic: TestDatabase.measurement, configuration: .notifications),
            .init(connection: 2, characteristic: TestDatabase.alert, configuration: .indications),
            .init(connection: 1, characteristic: TestDatabase.measurement, configuration: []),
        ])
        #expect(harness.delegate.writes.isEmpty)
    }

    @Test func aSubscriptionIsAnnouncedOnlyOnceItsWriteResponseIsOut() async throws {
        let harness = try Harness()
        #expect(await harness.exchange("12 1300 0100") == "13")
        // Requests are served in order: the announcement ran before this one was taken.
        #expect(await harness.exchange("0a 1500") == "0b01")
        // The application may notify from the announcement on; the Write Response was ahead of it.
        #expect(harness.delegate.sentAtSubscription == [1])
    }

    @Test func cccdValueChecks() async throws {
        let harness = try Harness()
        // Indications on a notify-only characteristic, notifications on an indicate-only one, reserved bits.
        #expect(await harness.exchange("12 1300 0200") == h("01 12 1300 fd"))
        #expect(await harness.exchange("12 2300 0100") == h("01 12 2300 fd"))
        #expect(await harness.exchange("12 1300 0400") == h("01 12 1300 fd"))
        #expect(await harness.exchange("12 1300 01") == h("01 12 1300 0d"))
        #expect(await harness.exchange("12 1300 010000") == h("01 12 1300 0d"))
        #expect(await harness.exchange("12 0b00 0200") == "13")
        #expect(harness.subscribers(of: .serviceChanged) == [1: .indications])
        #expect(harness.server.configuration(of: TestDatabase.measurement, on: harness.link(1)) == [])
    }

    @Test func closingAConnectionForgetsItsSubscriptions() async throws {
        let harness = try Harness()
        #expect(await harness.exchange("12 1300 0100") == "13")
        #expect(await harness.exchange("12 1300 0100", on: 2) == "13")
        harness.close(1)
        #expect(harness.subscribers(of: TestDatabase.measurement) == [2: .notifications])
        harness.open(1)
        #expect(await harness.exchange("0a 1300") == h("0b 0000"))
    }

    @Test func clientSupportedFeaturesMayOnlyGainBits() async throws {
        let harness = try Harness()
        #expect(await harness.exchange("0a 0d00") == "0b00")
        #expect(!harness.server.supportsMultipleHandleValueNotifications(harness.link(1)))
        #expect(await harness.exchange("12 0d00 04") == "13")
        #expect(harness.server.supportsMultipleHandleValueNotifications(harness.link(1)))
        #expect(!harness.server.supportsMultipleHandleValueNotifications(harness.link(2)))
        #expect(await harness.exchange("0a 0d00") == "0b04")
        #expect(await harness.exchange("0a 0d00", on: 2) == "0b00")
        // Clearing bit 2 is refused; adding bit 0 keeps bit 2.
        #expect(await harness.exchange("12 0d00 01") == h("01 12 0d00 13"))
        #expect(await harness.exchange("12 0d00 00") == h("01 12 0d00 13"))
        #expect(await harness.exchange("12 0d00 05") == "13")
        #expect(await harness.exchange("12 0d00") == h("01 12 0d00 0d"))
        #expect(await harness.exchange("0a 0d00") == "0b05")
        #expect(harness.server.clientSupportedFeatures(of: harness.link(1)) == [0x05])
        #expect(harness.delegate.writes.isEmpty)
    }

    @Test func databaseHashIsServed() async throws {
        let harness = try Harness()
        let hash = harness.server.database.databaseHash
        #expect(hash.count == 16)
        #expect(await harness.exchange("0a 0f00") == "0b" + hash.hexString)
    }
}
