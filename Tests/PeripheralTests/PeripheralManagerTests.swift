import ATT
import BLECore
import GATT
import GATTNotify
import HCI
import Synchronization
import Testing
import TestSupport
import VirtualController
@testable import Peripheral

enum TestIDs {
    static let notifying = CharacteristicID("test.notifying")
    static let indicating = CharacteristicID("test.indicating")
    static let echo = CharacteristicID("test.echo")
    static let notifyingToo = CharacteristicID("test.notifying-too")
    static let secret = CharacteristicID("test.secret")
    static let both = CharacteristicID("test.notify-or-indicate")
    static let service = BluetoothUUID("0000FEE0-1234-5678-9ABC-DEF012345678")!
    static let extraService = BluetoothUUID("0000FEF0-1234-5678-9ABC-DEF012345678")!

    /// A value that needs an encrypted link, and one a central may take as notifications or indications.
    static let extra = GATTService(uuid: extraService, characteristics: [
        GATTCharacteristic(id: secret, uuid: BluetoothUUID("0000FEF1-1234-5678-9ABC-DEF012345678")!, properties: [.read],
                           permissions: [.readable, .readEncryptionRequired], value: .static([0x5E])),
        GATTCharacteristic(id: both, uuid: BluetoothUUID("0000FEF2-1234-5678-9ABC-DEF012345678")!, properties: [.notify, .indicate],
                           permissions: []),
    ])
}

/// Every peripheral event, with a barrier on the n-th one of a kind.
final class EventRecorder: Sendable {
    let events = Recorder<PeripheralEvent>()

    func count(where predicate: (PeripheralEvent) -> Bool) -> Int { events.count(where: predicate) }

    /// Returns once `count` events matching `predicate` arrived.
    func wait(for count: Int = 1, where predicate: @escaping @Sendable (PeripheralEvent) -> Bool) async {
        await events.wait(for: count, where: predicate)
    }
}

/// A published peripheral on a virtual radio, with an application that answers echo requests.
struct PeripheralFixture {
    let radio = VirtualRadio(label: "peripheral-tests")
    let controller: VirtualController
    let manager: PeripheralManager
    let address = BluetoothAddress("C5:00:00:00:00:01")!
    let recorder = EventRecorder()
    let clock: any HostClock

    init(completion: VirtualController.CompletionPolicy = .immediate, bufferCount: UInt8 = 8, requestTimeout: Duration = .seconds(10),
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

    var database: AttributeDatabase { get async { await manager.database! } }

    func central(_ last: UInt8) -> VirtualCentral {
        radio.makeCentral(address: DeviceAddress(BluetoothAddress(littleEndian: [last, 0, 0, 0, 0, 0xC2]), type: .randomDevice))
    }

    /// Connects a central; returns once the peripheral registered the link (its GATT server serves it).
    func connect(_ last: UInt8, confirmIndications: Bool = true) async throws -> ATTTestClient {
        let link = try await central(last).connect(to: DeviceAddress(address, type: .randomDevice))
        let client = ATTTestClient(link: link, confirmIndications: confirmIndications)
        // A round trip: the link is up on the peripheral's side once it answers.
        _ = await client.request(.readByGroupTypeRequest(startHandle: 0x0001, endHandle: 0xFFFF, groupType: GATTUUID.primaryService))
        return client
    }

    func subscribe(_ client: ATTTestClient, to id: CharacteristicID, value: UInt16) async throws {
        let cccd = try #require(await database.cccdHandle(for: id))
        let response = await client.request(.writeRequest(handle: cccd, value: [UInt8(value & 0xFF), UInt8(value >> 8)]))
        #expect(response == .writeResponse)
    }

    /// A request-response round trip on `client`'s link: every PDU queued for it before this call
    /// has reached the client once it returns.
    func roundTrip(_ client: ATTTestClient) async {
        _ = await client.request(.readByGroupTypeRequest(startHandle: 0x0001, endHandle: 0xFFFF, groupType: GATTUUID.primaryService))
    }

    func central(of client: ATTTestClient) -> ConnectedCentral? {
        manager.host.links.link(handle: client.link.peripheralHandle).map(ConnectedCentral.init(link:))
    }

    func count(where predicate: (PeripheralEvent) -> Bool) -> Int { recorder.count(where: predicate) }
}

@Suite struct PeripheralManagerTests {
    @Test func readsWritesAndNotificationsEndToEnd() async throws {
        let fixture = try await PeripheralFixture()
        let client = try await fixture.connect(1)
        #expect(await client.request(.exchangeMTURequest(clientRxMTU: 185)) == .exchangeMTUResponse(serverRxMTU: 247))
        let echo = try #require(await fixture.database.valueHandle(for: TestIDs.echo))
        #expect(await client.request(.readRequest(handle: echo)) == .readResponse(value: [0x01]))
        #expect(await client.request(.writeRequest(handle: echo, value: [0xAA, 0xBB])) == .writeResponse)
        #expect(await client.request(.readRequest(handle: echo)) == .readResponse(value: [0xAA, 0xBB]))
        try await fixture.subscribe(client, to: TestIDs.notifying, value: 0x0001)
        let handle = try #require(await fixture.database.valueHandle(for: TestIDs.notifying))
        #expect(fixture.manager.updateValue([1, 2, 3], for: TestIDs.notifying))
        await client.notifications.wait(for: 1)
        #expect(client.notifications.withLock { $0.map(\.value) } == [[1, 2, 3]])
        #expect(client.notifications.withLock { $0.map(\.handle) } == [handle])
        await fixture.recorder.wait { if case .subscribed = $0 { return true } else { return false } }
        // Values longer than MTU−3 are truncated in the notification (MTU 185 here).
        #expect(fixture.manager.updateValue([UInt8](repeating: 7, count: 300), for: TestIDs.notifying))
        await client.notifications.wait(for: 2)
        #expect(client.notifications.withLock { $0.last?.value.count } == 182)
        await fixture.manager.shutdown()
    }

    @Test func unansweredRequestsFailAtTheDeadlineInVirtualTime() async throws {
        let clock = ManualClock()
        // Under the 2 s command timeout, so moving the clock can never time out an HCI command in flight.
        let fixture = try await PeripheralFixture(requestTimeout: .seconds(1), answerRequests: false, clock: clock)
        let client = try await fixture.connect(1)
        let echo = try #require(await fixture.database.valueHandle(for: TestIDs.echo))
        client.send(.readRequest(handle: echo))
        await fixture.recorder.wait { if case .readRequest = $0 { return true } else { return false } }
        let request = try #require(fixture.recorder.events.withLock { events in
            events.compactMap { if case let .readRequest(request) = $0 { return request } else { return nil } }.first
        })
        clock.advance(by: .milliseconds(999))
        #expect(fixture.count { if case .readRequest = $0 { return true } else { return false } } == 1)
        clock.advance(by: .milliseconds(1))
        #expect(await client.nextResponse() == .errorResponse(requestOpcode: .readRequest, handle: echo, error: .unlikelyError))
        #expect(throws: RespondError.expired(request.id)) { try fixture.manager.respond(to: request, with: .success([1])) }
        await fixture.manager.shutdown()
    }

    @Test func answeredRequestsLeaveNoDeadlineTimersBehind() async throws {
        let clock = ManualClock()
        let fixture = try await PeripheralFixture(clock: clock)
        let client = try await fixture.connect(1)
        let echo = try #require(await fixture.database.valueHandle(for: TestIDs.echo))
        let timersBefore = clock.pendingTimers
        for _ in 0..<20 { #expect(await client.request(.readRequest(handle: echo)) == .readResponse(value: [0x01])) }
        // Twenty deadlines were armed and answered; unrelated timers (command timeouts) only go away.
        #expect(clock.pendingTimers <= timersBefore)
        await fixture.manager.shutdown()
    }

    @Test func backpressureKeepsMemoryBoundedAndLosesNoIndication() async throws {
        let fixture = try await PeripheralFixture(completion: .manual, bufferCount: 4, queueEntries: 4)
        let client = try await fixture.connect(1)
        try await fixture.subscribe(client, to: TestIDs.notifying, value: 0x0001)
        try await fixture.subscribe(client, to: TestIDs.indicating, value: 0x0002)
        // Credits are withheld: a flood of notifications coalesces to the latest value.
        for index in 0..<10_000 {
            #expect(fixture.manager.updateValue([UInt8(truncatingIfNeeded: index), UInt8(truncatingIfNeeded: index >> 8)], for: TestIDs.notifying))
        }
        let depth = try #require(fixture.manager.statistics()?.connections.values.first?.queuedEntries)
        #expect(depth <= 4)
        // Indications queue FIFO until the queue is full: then updateValue says false.
        var accepted: [UInt8] = []
        for index in 0..<50 {
            if fixture.manager.updateValue([UInt8(index)], for: TestIDs.indicating) { accepted.append(UInt8(index)) } else { break }
        }
        #expect(accepted.count < 50)
        // Release credits as each indication arrives (its arrival is the barrier for the next release).
        fixture.controller.completeAllPackets()
        for received in 1...accepted.count {
            await client.indications.wait(for: received)
            fixture.controller.completeAllPackets()
        }
        #expect(client.indications.withLock { $0.map(\.value) } == accepted.map { [$0] })
        await fixture.recorder.wait { if case .readyToUpdateSubscribers = $0 { return true } else { return false } }
        // The notification delivered last is the latest value.
        while client.notifications.withLock({ $0.last?.value }) != [UInt8(9_999 & 0xFF), UInt8(9_999 >> 8)] {
            fixture.controller.completeAllPackets()
            await client.notifications.wait(for: client.notifications.all.count + 1)
        }
        #expect(fixture.controller.creditViolations == 0)
        await fixture.manager.shutdown()
    }

    @Test func stalledCentralDoesNotSlowAHealthyOne() async throws {
        let fixture = try await PeripheralFixture(completion: .manual, bufferCount: 4)
        let stalled = try await fixture.connect(1)
        let healthy = try await fixture.connect(2)
        try await fixture.subscribe(stalled, to: TestIDs.notifying, value: 0x0001)
        try await fixture.subscribe(healthy, to: TestIDs.notifying, value: 0x0001)
        let healthyHandle = healthy.link.peripheralHandle
        let controller = fixture.controller
        // Only the healthy central's packets are acknowledged; each one it receives is the barrier
        // for the next update, so it gets every value while its neighbour holds its credits.
        for index in 0..<200 {
            #expect(fixture.manager.updateValue([UInt8(index)], for: TestIDs.notifying))
            controller.completePackets(handle: healthyHandle, count: controller.packetsInBuffer[healthyHandle] ?? 0)
            await healthy.notifications.wait(for: index + 1)
        }
        #expect(stalled.notifications.withLock { $0.count } <= 3)
        #expect(healthy.notifications.withLock { $0.map(\.value) } == (0..<200).map { [UInt8($0)] })
        await fixture.manager.shutdown()
    }

    @Test func multipleHandleValueNotificationCarriesTheLatestValuesOfBothCharacteristics() async throws {
        let fixture = try await PeripheralFixture(completion: .manual, bufferCount: 8)
        let client = try await fixture.connect(1)
        let database = await fixture.database
        let features = try #require(database.characteristics(withUUID: GATTUUID.clientSupportedFeatures).first?.valueHandle)
        // Client Supported Features bit 2: Multiple Handle Value Notifications (Core Vol 3 Part G 7.2).
        #expect(await client.request(.writeRequest(handle: features, value: [0x04])) == .writeResponse)
        try await fixture.subscribe(client, to: TestIDs.notifying, value: 0x0001)
        try await fixture.subscribe(client, to: TestIDs.notifyingToo, value: 0x0001)
        let first = try #require(database.valueHandle(for: TestIDs.notifying))
        let second = try #require(database.valueHandle(for: TestIDs.notifyingToo))
        let central = try #require(fixture.central(of: client))
        let queued = { fixture.manager.statistics()?.connections[central.link.id]?.queuedEntries ?? 0 }

        // Credits are withheld: fill the controller's buffers and the ACL queue until the engine holds a value.
        var fillers: UInt8 = 0
        while queued() == 0, fillers < 50 {
            #expect(fixture.manager.updateValue([fillers], for: TestIDs.notifying))
            fillers += 1
        }
        #expect(queued() == 1)
        #expect(fixture.manager.updateValue([0xA1, 0xA2], for: TestIDs.notifying))
        #expect(fixture.manager.updateValue([0xB1], for: TestIDs.notifyingToo))
        #expect(queued() == 2)

        // Returning the credits lets the ACL queue's filler go, then the two queued values as one PDU.
        fixture.controller.completeAllPackets()
        await client.multipleNotifications.wait(for: 1)
        // One 0x23 PDU with both latest values; the fillers sent while only one value was ready went
        // as plain notifications, and the one the engine held was replaced by the newer value.
        #expect(client.multipleNotifications.withLock { $0 } == [[
            ATTHandleValue(handle: first, value: [0xA1, 0xA2]),
            ATTHandleValue(handle: second, value: [0xB1]),
        ]])
        #expect(client.notifications.withLock { $0.map(\.value) } == (0..<(fillers - 1)).map { [$0] })
        #expect(client.notifications.withLock { $0.allSatisfy { $0.handle == first } })
        let counters = try #require(fixture.manager.statistics()?.connections[central.link.id]?.counters)
        #expect(counters.multipleNotificationPDUs == 1 && counters.multipleNotificationValues == 2)
        #expect(counters.sent == Int(fillers) - 1 + 2)
        #expect(fixture.controller.creditViolations == 0)
        await fixture.manager.shutdown()
    }
}
