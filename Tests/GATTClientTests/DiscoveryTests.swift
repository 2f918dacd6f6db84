import ATT
import BLECore
import GATT
import GATTClient
import Testing
import TestSupport

@Suite(.scaledTimeLimit(minutes: 1)) struct DiscoveryTests {
    @Test func exchangesTheMTUAndStoresItOnTheLink() async throws {
        let pair = try ServerPair(serverMTU: 100, clientMTU: 247)
        #expect(try await pair.client.exchangeMTU() == 100)
        #expect(pair.clientLink.mtu == 100)
        #expect(pair.client.maximumWriteValueLength(withResponse: false) == 97)
        // Once per link: a second call does not send another request.
        #expect(try await pair.client.exchangeMTU() == 100)
    }

    @Test func discoversAllPrimaryServicesAtTheDefaultMTU() async throws {
        let pair = try ServerPair()
        let database = try Fixture.database()
        let services = try await pair.client.discoverPrimaryServices()
        #expect(services.map(\.uuid) == [GATTUUID.genericAccessService, GATTUUID.genericAttributeService,
                                         Fixture.heartRate, Fixture.battery, Fixture.customService])
        let expected = database.serviceGroups.map { $0.startHandle...$0.endGroupHandle }
        #expect(services.map(\.handles) == expected)
        #expect(services.filter { !$0.isPrimary }.isEmpty)
        #expect(pair.client.discoveredServices == services)
    }

    @Test func discoversServicesByUUID() async throws {
        let pair = try ServerPair()
        let services = try await pair.client.discoverPrimaryServices([Fixture.customService, Fixture.heartRate, BluetoothUUID(0x1234)])
        #expect(services.map(\.uuid) == [Fixture.heartRate, Fixture.customService])
        let all = try await pair.client.discoverPrimaryServices()
        #expect(Set(services).isSubset(of: Set(all)))
    }

    @Test func discoversIncludedServices() async throws {
        let pair = try ServerPair()
        let services = try await pair.client.discoverPrimaryServices()
        let custom = try #require(services.first { $0.uuid == Fixture.customService })
        let battery = try #require(services.first { $0.uuid == Fixture.battery })
        let included = try await pair.client.discoverIncludedServices(of: custom)
        #expect(included == [RemoteService(uuid: Fixture.battery, handles: battery.handles, isPrimary: true)])
        #expect(pair.client.discoveredServices.first { $0.uuid == Fixture.customService }?.includedServices == included)
        #expect(try await pair.client.discoverIncludedServices(of: battery).isEmpty)
    }

    @Test func discoversCharacteristicsAndFiltersThem() async throws {
        let pair = try ServerPair()
        let database = try Fixture.database()
        let custom = try #require(try await pair.client.discoverPrimaryServices([Fixture.customService]).first)
        let all = try await pair.client.discoverCharacteristics(of: custom)
        #expect(all.map(\.uuid) == [Fixture.setpointUUID, Fixture.longUUID, Fixture.alertUUID])
        #expect(all.map(\.valueHandle) == [Fixture.setpoint, Fixture.long, Fixture.alert].map { database.valueHandle(for: $0) })
        #expect(all[0].properties == [.read, .write, .writeWithoutResponse])
        // Each ends right before the next declaration; the last at the end of the service.
        #expect(all[0].endHandle == all[1].declarationHandle - 1)
        #expect(all[2].endHandle == custom.handles.upperBound)
        #expect(Set(all.map(\.service)) == [custom])

        let filtered = try await pair.client.discoverCharacteristics([Fixture.longUUID], of: custom)
        #expect(filtered == [all[1]])
    }

    @Test func discoversDescriptors() async throws {
        let pair = try ServerPair()
        let database = try Fixture.database()
        let custom = try #require(try await pair.client.discoverPrimaryServices([Fixture.customService]).first)
        let characteristics = try await pair.client.discoverCharacteristics(of: custom)
        let setpoint = try await pair.client.discoverDescriptors(of: characteristics[0])
        #expect(setpoint.map(\.uuid) == [GATTUUID.userDescription])
        #expect(try await pair.client.readDescriptor(setpoint[0]) == Array("Setpoint".utf8))
        #expect(try await pair.client.discoverDescriptors(of: characteristics[1]).isEmpty)
        let alert = try await pair.client.discoverDescriptors(of: characteristics[2])
        #expect(alert == [RemoteDescriptor(uuid: GATTUUID.clientCharacteristicConfiguration, handle: database.cccdHandle(for: Fixture.alert)!)])
    }

    @Test func learnsTheServiceChangedHandleFromTheGATTService() async throws {
        let pair = try ServerPair()
        let database = try Fixture.database()
        let gatt = try #require(try await pair.client.discoverPrimaryServices([GATTUUID.genericAttributeService]).first)
        _ = try await pair.client.discoverCharacteristics(of: gatt)
        #expect(pair.client.serviceChangedHandle == database.characteristics(withUUID: GATTUUID.serviceChanged).first?.valueHandle)
    }
}
