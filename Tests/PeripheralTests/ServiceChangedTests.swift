import ATT
import BLECore
import GATT
import Testing
import PeripheralTestSupport
import TestSupport
@testable import Peripheral

/// Services added or removed after `publish()`: the new database is served at once and centrals that
/// enabled Service Changed indications are told the exact handle range (Core Vol 3 Part G 7.1).
@Suite(.scaledTimeLimit(minutes: 1)) struct ServiceChangedTests {
    static let environmental = BluetoothUUID(0x181A)
    static let temperature = CharacteristicID("test.temperature")
    static let environmentalService = GATTService(uuid: environmental, characteristics: [
        GATTCharacteristic(id: temperature, uuid: BluetoothUUID(0x2A6E), properties: .read, permissions: .readable,
                           value: .static([0x34, 0x08])),
    ])

    /// Waits until `client` has received `count` indications.
    func indications(_ client: ATTTestClient, count: Int) async throws -> [(handle: UInt16, value: [UInt8])] {
        // A wait cut short (the time limit) must fail here, not let a caller index past what came.
        let arrived = await client.indications.wait(for: count)
        try #require(arrived, "\(count) indications expected, \(client.indications.all.count) arrived")
        return client.indications.all
    }

    /// Primary services as a client discovers them: Read By Group Type until Attribute Not Found.
    func discoverServices(_ client: ATTTestClient) async throws -> [ATTGroupData] {
        var found: [ATTGroupData] = []
        var start: UInt16 = 0x0001
        while true {
            let response = await client.request(.readByGroupTypeRequest(startHandle: start, endHandle: 0xFFFF,
                                                                         groupType: GATTUUID.primaryService))
            switch response {
            case let .readByGroupTypeResponse(list):
                found += list.entries
                let last = try #require(list.entries.last?.endGroupHandle)
                if last == 0xFFFF { return found }
                start = last + 1
            case .errorResponse(requestOpcode: .readByGroupTypeRequest, handle: start, error: .attributeNotFound):
                return found
            default:
                Issue.record("unexpected discovery response \(String(describing: response))")
                return found
            }
        }
    }

    @Test func addingAndRemovingAServiceIndicatesTheExactRangeToSubscribedCentralsOnly() async throws {
        let fixture = try await PeripheralFixture()
        let subscribed = try await fixture.connect(1)
        let other = try await fixture.connect(2)
        try await fixture.subscribe(subscribed, to: .serviceChanged, value: 0x0002)
        try await fixture.subscribe(other, to: TestIDs.notifying, value: 0x0001)
        let old = await fixture.database
        let serviceChanged = try #require(old.valueHandle(for: .serviceChanged))
        // GAP 0x01–0x07, GATT 0x08–0x0F, the fixture's service 0x10–0x1B.
        #expect(old.lastHandle == 0x1B)

        try await fixture.manager.add(Self.environmentalService)

        // The new service takes 0x1C (declaration), 0x1D/0x1E (characteristic): exactly that range.
        let added = try await indications(subscribed, count: 1)
        #expect(added.map(\.handle) == [serviceChanged])
        #expect(added.map(\.value) == [[0x1C, 0x00, 0x1E, 0x00]])
        let new = await fixture.database
        #expect(new.lastHandle == 0x1E)
        #expect(new.valueHandle(for: .serviceChanged) == serviceChanged)
        // Rediscovery finds the new service; its value reads through the new handle.
        let services = try await discoverServices(subscribed)
        #expect(services.map(\.handle) == [0x01, 0x08, 0x10, 0x1C])
        #expect(services.last == ATTGroupData(handle: 0x1C, endGroupHandle: 0x1E, value: [0x1A, 0x18]))
        #expect(await subscribed.request(.readRequest(handle: 0x1E)) == .readResponse(value: [0x34, 0x08]))
        // The indication was confirmed (the test client confirms like a real one, before the reads above).
        let central = try #require(fixture.central(of: subscribed))
        #expect(fixture.manager.statistics()?.connections[central.link.id]?.counters.confirmed == 1)

        try await fixture.manager.remove(serviceUUID: Self.environmental)

        let both = try await indications(subscribed, count: 2)
        #expect(both.map(\.handle) == [serviceChanged, serviceChanged])
        #expect(both.last?.value == [0x1C, 0x00, 0x1E, 0x00])
        #expect(try await discoverServices(subscribed).map(\.handle) == [0x01, 0x08, 0x10])
        #expect(await subscribed.request(.readRequest(handle: 0x1E))
            == .errorResponse(requestOpcode: .readRequest, handle: 0x1E, error: .invalidHandle))

        // The central that never enabled Service Changed was told nothing, and its subscription survived.
        await fixture.roundTrip(other)
        #expect(other.indications.all.isEmpty)
        #expect(fixture.manager.updateValue([0x07], for: TestIDs.notifying))
        await other.notifications.wait(for: 1)
        #expect(other.notifications.withLock { $0.map(\.value) } == [[0x07]])
        await fixture.manager.shutdown()
    }

    @Test func removingAServiceDropsItsRoutesAndSubscribersAndShiftsLaterHandles() async throws {
        let fixture = try await PeripheralFixture()
        let client = try await fixture.connect(1)
        try await fixture.subscribe(client, to: .serviceChanged, value: 0x0002)
        try await fixture.subscribe(client, to: TestIDs.notifying, value: 0x0001)
        try await fixture.manager.add(Self.environmentalService)
        _ = try await indications(client, count: 1)

        try await fixture.manager.remove(serviceUUID: TestIDs.service)

        // The old service spanned 0x10–0x1B and the moved one 0x1C–0x1E, now 0x10–0x12: all of it changed.
        let received = try await indications(client, count: 2)
        #expect(received.last?.value == [0x10, 0x00, 0x1E, 0x00])
        let database = await fixture.database
        #expect(database.characteristic(id: TestIDs.notifying) == nil)
        #expect(database.valueHandle(for: Self.temperature) == 0x12)
        #expect(!fixture.manager.updateValue([0x01], for: TestIDs.notifying))
        #expect(await client.request(.readRequest(handle: 0x12)) == .readResponse(value: [0x34, 0x08]))
        #expect(client.notifications.all.isEmpty)
        // Service Changed stays enabled: the built-in GATT service did not change.
        #expect(await client.request(.readRequest(handle: 0x0B)) == .readResponse(value: [0x02, 0x00]))
        await fixture.manager.shutdown()
    }

    @Test func indicationsQueuedForARemovedCharacteristicAreReportedByItsName() async throws {
        let fixture = try await PeripheralFixture(extraService: true)
        let client = try await fixture.connect(1, confirmIndications: false)
        try await fixture.subscribe(client, to: TestIDs.both, value: 0x0002)
        let central = try #require(fixture.central(of: client))
        #expect(fixture.manager.updateValue([0x01], for: TestIDs.both))
        #expect(fixture.manager.updateValue([0x02], for: TestIDs.both))
        await client.indications.wait(for: 1)

        try await fixture.manager.remove(serviceUUID: TestIDs.extraService)

        // The second one never went; it is named by the characteristic it was queued for.
        await fixture.recorder.wait { if case .indicationsAbandoned(central, _) = $0 { return true } else { return false } }
        let abandoned = fixture.recorder.events.withLock { events in
            events.compactMap { if case let .indicationsAbandoned(_, updates) = $0 { return updates } else { return nil } }.first
        }
        #expect(abandoned == [AbandonedUpdate(characteristic: TestIDs.both, value: [0x02], wasSent: false)])
        await fixture.manager.shutdown()
    }

    @Test func nothingIsIndicatedWhenNoCentralEnabledServiceChanged() async throws {
        let fixture = try await PeripheralFixture()
        let client = try await fixture.connect(1)
        try await fixture.manager.add(Self.environmentalService)
        await fixture.roundTrip(client)
        #expect(client.indications.all.isEmpty)
        let central = try #require(fixture.central(of: client))
        #expect(fixture.manager.statistics()?.connections[central.link.id]?.counters.enqueued == 0)
        #expect(try await discoverServices(client).map(\.handle) == [0x01, 0x08, 0x10, 0x1C])
        await fixture.manager.shutdown()
    }

    @Test func removalErrorsSayWhatToDo() async throws {
        let fixture = try await PeripheralFixture()
        await #expect(throws: PeripheralError.unknownService(Self.environmental)) {
            try await fixture.manager.remove(serviceUUID: Self.environmental)
        }
        await #expect(throws: PeripheralError.builtInServiceNotRemovable(GATTUUID.genericAttributeService)) {
            try await fixture.manager.remove(serviceUUID: GATTUUID.genericAttributeService)
        }
        await #expect(throws: PeripheralError.database(.duplicateService(TestIDs.service))) {
            try await fixture.manager.add(GATTService(uuid: TestIDs.service))
        }
        #expect(PeripheralError.unknownService(Self.environmental).description.contains("add(_:)"))
        #expect(PeripheralError.builtInServiceNotRemovable(GATTUUID.genericAccessService).description.contains("cannot be removed"))
        // A failed call leaves the published database as it was.
        #expect(await fixture.database.lastHandle == 0x1B)
        await fixture.manager.shutdown()
    }
}
