import ATT
import BLECore
import GATT
import GATTNotify
import HCI
import Peripheral
import Synchronization
import Testing
import TestSupport
import VirtualController

/// The test service's characteristics, shared by the fixture and the tests that use it.
public enum TestIDs {
    public static let notifying = CharacteristicID("test.notifying")
    public static let indicating = CharacteristicID("test.indicating")
    public static let echo = CharacteristicID("test.echo")
    public static let notifyingToo = CharacteristicID("test.notifying-too")
    public static let secret = CharacteristicID("test.secret")
    public static let both = CharacteristicID("test.notify-or-indicate")
    public static let service = BluetoothUUID("0000FEE0-1234-5678-9ABC-DEF012345678")!
    public static let extraService = BluetoothUUID("0000FEF0-1234-5678-9ABC-DEF012345678")!

    /// A value that needs an encrypted link, and one a central may take as notifications or indications.
    public static let extra = GATTService(uuid: extraService, characteristics: [
        GATTCharacteristic(id: secret, uuid: BluetoothUUID("0000FEF1-1234-5678-9ABC-DEF012345678")!, properties: [.read],
                           permissions: [.readable, .readEncryptionRequired], value: .static([0x5E])),
        GATTCharacteristic(id: both, uuid: BluetoothUUID("0000FEF2-1234-5678-9ABC-DEF012345678")!, properties: [.notify, .indicate],
                           permissions: []),
    ])
}

/// Every peripheral event, with a barrier on the n-th one of a kind.
public final class PeripheralEventRecorder: Sendable {
    public let events = Recorder<PeripheralEvent>()

    public func count(where predicate: (PeripheralEvent) -> Bool) -> Int { events.count(where: predicate) }

    /// Returns once `count` events matching `predicate` arrived.
    public func wait(for count: Int = 1, where predicate: @escaping @Sendable (PeripheralEvent) -> Bool) async {
        await events.wait(for: count, where: predicate)
    }
}

/// A published peripheral on a virtual radio, with an application that answers echo requests.
public struct PeripheralFixture {
    public let radio = VirtualRadio(label: "peripheral-tests")
    public let controller: VirtualController
    public let manager: PeripheralManager
    public let address = BluetoothAddress("C5:00:00:00:00:01")!
    public let recorder = PeripheralEventRecorder()
    public let clock: any HostClock

    public init(completion: VirtualController.CompletionPolicy = .immediate, bufferCount: UInt8 = 8, requestTimeout: Duration = .seconds(10),
         maxConnections: Int = 2, answerRequests: Bool = true, queueEntries: Int = 8, clock: any HostClock = ManualClock(),
         readEvents: Bool = true, extraService: Bool = false, services: [GATTService] = [], configure: (inout PeripheralManager.Configuration) -> Void = { _ in }) async throws {
        controller = radio.makeController(configuration: .init(address: BluetoothAddress("00:1B:DC:00:00:02")!, aclBufferSize: 251,
                                                               aclBufferCount: bufferCount, completionPolicy: completion))
        var configuration = PeripheralManager.Configuration(deviceName: "test-peripheral")
        configuration.addressPolicy = .randomStatic(address)
        configuration.maxConnections = maxConnections
        configuration.requestTimeout = requestTimeout
        configuration.queueLimits = try QueueLimits(maximumEntries: queueEntries, maximumBytes: 4096)
        configuration.clock = clock
        configure(&configuration)
        self.clock = clock
        manager = PeripheralManager(transport: controller, configuration: configuration)
        try await manager.start()
        try await manager.add(GATTService(uuid: TestIDs.service, characteristics: [
            GATTCharacteristic(id: TestIDs.notifying, uuid: BluetoothUUID("0000FEE1-1234-5678-9ABC-DEF012345678")!, properties: [.notify], permissions: []),
            GATTCharacteristic(id: TestIDs.indicating, uuid: BluetoothUUID("0000FEE2-1234-5678-9ABC-DEF012345678")!, properties: [.indicate], permissions: []),
            GATTCharacteristic(id: TestIDs.echo, uuid: BluetoothUUID("0000FEE3-1234-5678-9ABC-DEF012345678")!, properties: [.read, .write, .writeWithoutResponse],
                               permissions: [.readable, .writeable]),
            GATTCharacteristic(id: TestIDs.notifyingToo, uuid: BluetoothUUID("0000FEE4-1234-5678-9ABC-DEF012345678")!, properties: [.notify], permissions: []),
        ]))
        if extraService { try await manager.add(TestIDs.extra) }
        for service in services { try await manager.add(service) }
        try await manager.publish()
        try await manager.startAdvertising(localName: "test", serviceUUIDs: [TestIDs.service])
        guard readEvents else { return }
        let manager = manager, recorder = recorder, answer = answerRequests
        Task {
            let echo = Mutex<[UInt8]>([0x01])
            for await event in manager.events {
                if answer {
                    switch event {
                    case let .readRequest(request): try? manager.respond(to: request, with: .success(echo.withLock { $0 }))
                    case let .writeRequests(batch):
                        for request in batch.requests { echo.withLock { $0 = request.value } }
                        try? manager.respond(to: batch, with: .success(()))
                    default: break
                    }
                }
                recorder.events.append(event)
            }
        }
    }

    public var database: AttributeDatabase { get async { await manager.database! } }

    public func central(_ last: UInt8) -> VirtualCentral {
        radio.makeCentral(address: DeviceAddress(BluetoothAddress(littleEndian: [last, 0, 0, 0, 0, 0xC2]), type: .randomDevice))
    }

    /// Connects a central; returns once the peripheral registered the link (its GATT server serves it).
    public func connect(_ last: UInt8, confirmIndications: Bool = true) async throws -> ATTTestClient {
        let link = try await central(last).connect(to: DeviceAddress(address, type: .randomDevice))
        let client = ATTTestClient(link: link, confirmIndications: confirmIndications)
        // A round trip: the link is up on the peripheral's side once it answers.
        _ = await client.request(.readByGroupTypeRequest(startHandle: 0x0001, endHandle: 0xFFFF, groupType: GATTUUID.primaryService))
        return client
    }

    public func subscribe(_ client: ATTTestClient, to id: CharacteristicID, value: UInt16) async throws {
        let cccd = try #require(await database.cccdHandle(for: id))
        let response = await client.request(.writeRequest(handle: cccd, value: [UInt8(value & 0xFF), UInt8(value >> 8)]))
        #expect(response == .writeResponse)
    }

    /// A request-response round trip on `client`'s link: every PDU queued for it before this call
    /// has reached the client once it returns.
    public func roundTrip(_ client: ATTTestClient) async {
        _ = await client.request(.readByGroupTypeRequest(startHandle: 0x0001, endHandle: 0xFFFF, groupType: GATTUUID.primaryService))
    }

    public func central(of client: ATTTestClient) -> ConnectedCentral? {
        manager.host.links.link(handle: client.link.peripheralHandle).map(ConnectedCentral.init(link:))
    }

    public func count(where predicate: (PeripheralEvent) -> Bool) -> Int { recorder.count(where: predicate) }
}
