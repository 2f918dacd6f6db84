import ATT
import BLECore
import GATT
import GATTNotify
import HCI
import Synchronization
import Testing
import PeripheralTestSupport
import TestSupport
import VirtualController
@testable import Peripheral

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
