import ATT
import BLECore
import GATT
import GATTClient
import GATTServer
import Testing
import TestSupport

@Suite(.scaledTimeLimit(minutes: 1)) struct SubscriptionTests {
    @Test func notificationsArriveOnUpdates() async throws {
        let pair = try ServerPair()
        let updates = record(pair.client.updates)
        let heartRate = try #require(try await pair.client.discoverPrimaryServices([Fixture.heartRate]).first)
        let measurement = try #require(try await pair.client.discoverCharacteristics(of: heartRate).first)
        try await pair.client.setNotify(true, for: measurement)
        #expect(await pair.delegate.subscriptions.wait(for: 1))
        #expect(pair.delegate.subscriptions.all.first?.1 == .notifications)
        #expect(pair.server.configuration(of: Fixture.measurement, on: pair.serverLink) == .notifications)
        #expect(pair.client.subscribedValueHandles == [measurement.valueHandle])

        pair.push(.handleValueNotification(handle: measurement.valueHandle, value: [0x00, 72]))
        pair.push(.multipleHandleValueNotification([ATTHandleValue(handle: measurement.valueHandle, value: [0x00, 73]),
                                                    ATTHandleValue(handle: measurement.valueHandle, value: [0x00, 74])]))
        #expect(await updates.wait(for: 3))
        #expect(updates.all.map(\.value) == [[0x00, 72], [0x00, 73], [0x00, 74]])
        #expect(updates.all.allSatisfy { $0.kind == .notification && $0.valueHandle == measurement.valueHandle })

        try await pair.client.setNotify(false, for: measurement)
        #expect(await pair.delegate.subscriptions.wait(for: 2))
        #expect(pair.server.configuration(of: Fixture.measurement, on: pair.serverLink) == [])
        #expect(pair.client.subscribedValueHandles.isEmpty)
    }

    @Test func indicationsAreConfirmedAndDelivered() async throws {
        let pair = try ServerPair()
        let updates = record(pair.client.updates)
        let custom = try #require(try await pair.client.discoverPrimaryServices([Fixture.customService]).first)
        let alert = try #require(try await pair.client.discoverCharacteristics([Fixture.alertUUID], of: custom).first)
        try await pair.client.setNotify(true, for: alert)
        #expect(pair.server.configuration(of: Fixture.alert, on: pair.serverLink) == .indications)

        pair.push(.handleValueIndication(handle: alert.valueHandle, value: [0xAB]))
        #expect(await pair.delegate.confirmations.wait(for: 1))
        #expect(await updates.wait(for: 1))
        #expect(updates.all == [ValueUpdate(valueHandle: alert.valueHandle, value: [0xAB], kind: .indication)])
    }

    @Test func prefersIndicationsOnlyWhenAskedAndOffered() async throws {
        let pair = try ServerPair()
        let battery = try #require(try await pair.client.discoverPrimaryServices([Fixture.battery]).first)
        let level = try #require(try await pair.client.discoverCharacteristics(of: battery).first)
        // Battery Level offers notify only: preferring indications still subscribes to notifications.
        try await pair.client.setNotify(true, for: level, preferIndications: true)
        #expect(pair.server.configuration(of: Fixture.batteryLevel, on: pair.serverLink) == .notifications)
    }

    @Test func refusesToSubscribeWithoutNotifyOrIndicate() async throws {
        let pair = try ServerPair()
        let heartRate = try #require(try await pair.client.discoverPrimaryServices([Fixture.heartRate]).first)
        let location = try #require(try await pair.client.discoverCharacteristics([BluetoothUUID(0x2A38)], of: heartRate).first)
        let error = await #expect(throws: GATTClientError.self) { try await pair.client.setNotify(true, for: location) }
        guard case .notPermitted = error else {
            Issue.record("expected notPermitted, got \(String(describing: error))")
            return
        }
    }

    @Test func serviceChangedInvalidatesTheCacheAndIsAnnounced() async throws {
        let pair = try ServerPair()
        let events = record(pair.client.events)
        let updates = record(pair.client.updates)
        let services = try await pair.client.discoverPrimaryServices()
        let gatt = try #require(services.first { $0.uuid == GATTUUID.genericAttributeService })
        let serviceChanged = try #require(try await pair.client.discoverCharacteristics([GATTUUID.serviceChanged], of: gatt).first)
        try await pair.client.setNotify(true, for: serviceChanged)
        let heartRate = try #require(services.first { $0.uuid == Fixture.heartRate })
        let measurement = try #require(try await pair.client.discoverCharacteristics(of: heartRate).first)
        try await pair.client.setNotify(true, for: measurement)

        // The peripheral drops the battery service: everything from there on moves.
        let old = try Fixture.database()
        let new = try Fixture.database([Fixture.heartRateService, Fixture.custom.withoutIncludes])
        let range = try #require(ServiceChangedRange.affected(from: old, to: new))
        pair.server.replaceDatabase(new)
        pair.push(.handleValueIndication(handle: serviceChanged.valueHandle, value: ServiceChangedRange.value(for: range)))

        #expect(await events.wait(for: 1))
        #expect(events.all == [.servicesChanged(range)])
        #expect(await pair.delegate.confirmations.wait(for: 1))
        #expect(await updates.wait(for: 1))
        // Services before the range survive, the rest must be rediscovered; the heart rate
        // subscription lies before the range and stays.
        let kept = services.filter { !$0.handles.overlaps(range) }
        #expect(pair.client.discoveredServices == kept)
        #expect(pair.client.subscribedValueHandles.contains(measurement.valueHandle))
        let rediscovered = try await pair.client.discoverPrimaryServices()
        #expect(rediscovered.map(\.uuid) == [GATTUUID.genericAccessService, GATTUUID.genericAttributeService,
                                             Fixture.heartRate, Fixture.customService])
    }
}

extension GATTService {
    var withoutIncludes: GATTService {
        var copy = self
        copy.includedServices = []
        return copy
    }
}
