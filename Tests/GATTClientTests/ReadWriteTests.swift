import ATT
import BLECore
import GATT
import GATTClient
import GATTServer
import Testing
import TestSupport

@Suite(.scaledTimeLimit(minutes: 1)) struct ReadWriteTests {
    /// The custom service's characteristics: setpoint, long, alert.
    private func customCharacteristics(_ pair: ServerPair) async throws -> [RemoteCharacteristic] {
        let custom = try #require(try await pair.client.discoverPrimaryServices([Fixture.customService]).first)
        return try await pair.client.discoverCharacteristics(of: custom)
    }

    @Test func readsAShortValue() async throws {
        let pair = try ServerPair()
        let heartRate = try #require(try await pair.client.discoverPrimaryServices([Fixture.heartRate]).first)
        let location = try #require(try await pair.client.discoverCharacteristics([BluetoothUUID(0x2A38)], of: heartRate).first)
        #expect(try await pair.client.read(location) == [0x01])
    }

    @Test(arguments: [23, 247])
    func readsALongValueWithReadBlob(mtu: Int) async throws {
        let pair = try ServerPair(serverMTU: mtu)
        try await pair.client.exchangeMTU()
        let characteristics = try await customCharacteristics(pair)
        #expect(try await pair.client.read(characteristics[1]) == Fixture.longValue)
    }

    @Test func readsAValueThatExactlyFillsTheFirstResponse() async throws {
        let pair = try ServerPair()
        let characteristics = try await customCharacteristics(pair)
        let exact = (0..<22).map { UInt8($0) }
        pair.delegate.values.withLock { $0[Fixture.setpoint] = exact }
        // 22 = MTU − 1: the client asks with Read Blob at offset 22 and the server says there is no more.
        #expect(try await pair.client.read(characteristics[0]) == exact)
    }

    @Test func writesAShortValue() async throws {
        let pair = try ServerPair()
        let characteristics = try await customCharacteristics(pair)
        try await pair.client.write([0x11, 0x22], to: characteristics[0])
        #expect(await pair.delegate.writes.wait(for: 1))
        #expect(pair.delegate.writes.all.first?.items == [GATTWriteItem(characteristic: Fixture.setpoint, value: [0x11, 0x22])])
        #expect(pair.delegate.writes.all.first?.kind == .request)
        #expect(try await pair.client.read(characteristics[0]) == [0x11, 0x22])
    }

    @Test func writesALongValueWithPrepareAndExecute() async throws {
        let pair = try ServerPair()
        let characteristics = try await customCharacteristics(pair)
        let value = (0..<200).map { UInt8(truncatingIfNeeded: 255 - $0) }
        try await pair.client.write(value, to: characteristics[0])
        #expect(await pair.delegate.writes.wait(for: 1))
        #expect(pair.delegate.writes.all.first?.items == [GATTWriteItem(characteristic: Fixture.setpoint, value: value)])
        #expect(pair.delegate.writes.all.first?.kind == .preparedExecution)
    }

    @Test func refusesValuesLongerThanTheAttributeMaximum() async throws {
        let pair = try ServerPair()
        await #expect(throws: GATTClientError.valueTooLong(length: 513, maximum: 512)) {
            try await pair.client.write([UInt8](repeating: 0, count: 513), toHandle: 0x0010)
        }
        #expect(throws: GATTClientError.valueTooLong(length: 21, maximum: 20)) {
            try pair.client.writeWithoutResponse([UInt8](repeating: 0, count: 21), toHandle: 0x0010)
        }
        await #expect(throws: GATTClientError.invalidHandle) { try await pair.client.read(handle: 0) }
    }

    @Test func reportsATTErrorsWithTheirCode() async throws {
        let pair = try ServerPair()
        let characteristics = try await customCharacteristics(pair)
        // The long characteristic is read-only.
        let error = await #expect(throws: GATTClientError.self) { try await pair.client.write([0x01], to: characteristics[1]) }
        #expect(error == .attError(.writeNotPermitted, handle: characteristics[1].valueHandle, request: .writeRequest))
        #expect(error?.description.contains("Write Not Permitted") == true)
    }

    @Test func pacesWriteWithoutResponse() async throws {
        let pair = try ServerPair()
        let characteristics = try await customCharacteristics(pair)
        let ready = record(pair.client.readyToSendWriteWithoutResponse)
        #expect(pair.client.canSendWriteWithoutResponse)
        #expect(try pair.client.writeWithoutResponse([0x01], to: characteristics[0]))

        pair.commandRoom.value = false
        #expect(!pair.client.canSendWriteWithoutResponse)
        #expect(try !pair.client.writeWithoutResponse([0x02], to: characteristics[0]))
        #expect(ready.all.isEmpty)

        pair.commandRoom.value = true
        pair.client.roomAvailable()
        #expect(await ready.wait(for: 1))
        // A drain nobody waited for signals nothing.
        pair.client.roomAvailable()
        #expect(try pair.client.writeWithoutResponse([0x03], to: characteristics[0]))
        #expect(await pair.delegate.writes.wait(for: 2))
        #expect(pair.delegate.writes.all.map(\.kind) == [.command, .command])
        #expect(pair.delegate.writes.all.map { $0.items.first?.value } == [[0x01], [0x03]])
        #expect(pair.commands.all.count == 2)
        #expect(ready.all.count == 1)
    }
}
