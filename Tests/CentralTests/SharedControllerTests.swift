import BLECore
import Bonding
import Central
import GAP
import GATT
import GATTClient
import HCI
import Peripheral
import SMP
import Testing
import TestSupport
import VirtualController

/// One controller in both roles: our PeripheralManager advertises and serves a remote central
/// while our CentralManager, on the same controller, scans and talks to a second device.
@Suite(.scaledTimeLimit(minutes: 1)) struct SharedControllerTests {
    static let ourAddress = BluetoothAddress("C6:00:00:00:00:50")!
    static let ourPeer = DeviceAddress(ourAddress, type: .randomDevice)

    /// Our device (a test peripheral whose controller the central role joins) and the second device.
    static func devices(secured: Bool) async throws -> (ours: TestPeripheral, second: TestPeripheral) {
        let second = try await TestPeripheral(secured: secured)
        let ours = try await TestPeripheral(radio: second.radio, secured: secured, address: ourAddress,
                                            controllerAddress: BluetoothAddress("00:1B:DC:00:00:50")!)
        return (ours, second)
    }

    /// What `make` was refused with (CentralError is not Equatable: its description names the case).
    static func refusal(_ make: () throws(CentralError) -> CentralManager) -> String? {
        do { _ = try make(); return nil } catch { return error.description }
    }

    static func characteristic(_ uuid: BluetoothUUID, on remote: RemotePeripheral) async throws -> RemoteCharacteristic {
        for service in try await remote.discoverServices() {
            if let found = try await remote.discoverCharacteristics([uuid], of: service).first { return found }
        }
        throw CentralError.attributeNotFound(uuid)
    }

    @Test func scansWhileAdvertisingAndCarriesGATTOnBothRolesAtOnce() async throws {
        let (ours, second) = try await Self.devices(secured: false)
        let ourCentral = try CentralManager(stack: ours.manager.stack)
        #expect(ourCentral.stack === ours.manager.stack)
        #expect(ourCentral.host === ours.manager.host)
        try await ourCentral.start()
        #expect(await ourCentral.currentState == .poweredOn)
        #expect(Self.refusal { () throws(CentralError) in try CentralManager(stack: ours.manager.stack) } == CentralError.stack(.roleTaken(.central)).description)
        let events = record(ourCentral)

        // Our central hears the second device while our peripheral keeps advertising: a remote
        // central finds us during the scan.
        try await ourCentral.scanForPeripherals()
        await events.wait { if case let .discovered(report) = $0 { report.peer == peerAddress } else { false } }
        let remoteCentral = try await makeCentral(on: second.radio, address: "C0:DE:00:00:00:31")
        let heardUs = try await remoteCentral.find(Self.ourAddress, timeout: .seconds(5))
        #expect(heardUs.peer == Self.ourPeer)
        await ourCentral.stopScan()

        // A central link out and a peripheral link in, side by side on one controller.
        let outgoing = try await ourCentral.connect(to: peerAddress)
        let incoming = try await remoteCentral.connect(to: Self.ourPeer)
        #expect(outgoing.link.role == .central)
        await ours.events.wait { if case .centralConnected = $0 { true } else { false } }
        #expect(ourCentral.connectedPeripherals.map(\.link.id) == [outgoing.link.id])

        // Reads both ways at once.
        let outgoingLong = try await Self.characteristic(TestPeripheral.longUUID, on: outgoing)
        let incomingLong = try await Self.characteristic(TestPeripheral.longUUID, on: incoming)
        async let outgoingRead = outgoing.readValue(of: outgoingLong)
        async let incomingRead = incoming.readValue(of: incomingLong)
        #expect(try await outgoingRead == TestPeripheral.longValue)
        #expect(try await incomingRead == TestPeripheral.longValue)

        // Notifications both ways: the second device to our central, our peripheral to the remote central.
        let outgoingMeasurement = try await Self.characteristic(BluetoothUUID(0x2A37), on: outgoing)
        let incomingMeasurement = try await Self.characteristic(BluetoothUUID(0x2A37), on: incoming)
        var outgoingUpdates = outgoing.updates.makeAsyncIterator()
        var incomingUpdates = incoming.updates.makeAsyncIterator()
        try await outgoing.setNotifyValue(true, for: outgoingMeasurement)
        try await incoming.setNotifyValue(true, for: incomingMeasurement)
        await second.waitForSubscription(to: TestPeripheral.measurement)
        await ours.waitForSubscription(to: TestPeripheral.measurement)
        #expect(second.manager.updateValue([0x06, 61], for: TestPeripheral.measurement))
        #expect(ours.manager.updateValue([0x06, 62], for: TestPeripheral.measurement))
        #expect(await outgoingUpdates.next()?.value == [0x06, 61])
        #expect(await incomingUpdates.next()?.value == [0x06, 62])

        // Writes from the remote central reach our peripheral role only.
        try await incoming.writeValue([0xA1], to: try await Self.characteristic(TestPeripheral.writableUUID, on: incoming))
        #expect(ours.writes == [[0xA1]])
        #expect(second.writes.isEmpty)

        // Closing the central link leaves the peripheral link up and working.
        await outgoing.disconnect()
        await events.wait { if case .disconnected = $0 { true } else { false } }
        #expect(incoming.isConnected)
        #expect(ours.manager.updateValue([0x06, 63], for: TestPeripheral.measurement))
        #expect(await incomingUpdates.next()?.value == [0x06, 63])

        // The central role leaves without taking the controller: the peripheral role carries on,
        // and another central role may join.
        await ourCentral.shutdown()
        #expect(try await incoming.readValue(of: incomingLong) == TestPeripheral.longValue)
        let nextCentral = try CentralManager(stack: ours.manager.stack)
        try await nextCentral.start()
        await nextCentral.shutdown()

        await incoming.disconnect()
        await remoteCentral.shutdown()
        await ours.manager.shutdown()
        await second.manager.shutdown()
    }

    @Test func closingThePeripheralLinkLeavesTheCentralLinkUp() async throws {
        let (ours, second) = try await Self.devices(secured: false)
        let ourCentral = try CentralManager(stack: ours.manager.stack)
        try await ourCentral.start()
        let remoteCentral = try await makeCentral(on: second.radio, address: "C0:DE:00:00:00:32")
        let outgoing = try await ourCentral.connect(to: try await ourCentral.find(TestPeripheral.address, timeout: .seconds(5)).peer)
        let incoming = try await remoteCentral.connect(to: try await remoteCentral.find(Self.ourAddress, timeout: .seconds(5)).peer)
        await ours.events.wait { if case .centralConnected = $0 { true } else { false } }
        await incoming.disconnect()
        await ours.events.wait { if case .centralDisconnected = $0 { true } else { false } }
        #expect(outgoing.isConnected)
        let long = try await Self.characteristic(TestPeripheral.longUUID, on: outgoing)
        #expect(try await outgoing.readValue(of: long) == TestPeripheral.longValue)
        await outgoing.disconnect()
        await ourCentral.shutdown()
        await remoteCentral.shutdown()
        await ours.manager.shutdown()
        await second.manager.shutdown()
    }

    @Test func pairingWorksOnEachRoleWithOneSecurityManager() async throws {
        let (ours, second) = try await Self.devices(secured: true)
        // The stack's setup serves both roles: a second one is refused, not silently ignored.
        var configuration = CentralManager.Configuration()
        configuration.security = SecuritySetup(store: InMemoryBondStore())
        #expect(Self.refusal { () throws(CentralError) in try CentralManager(stack: ours.manager.stack, configuration: configuration) }
                == CentralError.securityBelongsToTheStack.description)
        let ourCentral = try CentralManager(stack: ours.manager.stack)
        #expect(ourCentral.security === ours.manager.security)
        try await ourCentral.start()
        let events = record(ourCentral)
        let remoteCentral = try await makeCentral(on: second.radio, address: "C0:DE:00:00:00:33",
                                                  security: SecuritySetup(store: InMemoryBondStore()))
        let outgoing = try await ourCentral.connect(to: try await ourCentral.find(TestPeripheral.address, timeout: .seconds(5)).peer)
        let incoming = try await remoteCentral.connect(to: try await remoteCentral.find(Self.ourAddress, timeout: .seconds(5)).peer)
        let outgoingSecret = try await Self.characteristic(TestPeripheral.secretUUID, on: outgoing)
        let incomingSecret = try await Self.characteristic(TestPeripheral.secretUUID, on: incoming)

        // We pair as initiator on the central link and as responder on the peripheral link, at once.
        async let outgoingPairing = outgoing.pair()
        async let incomingPairing = incoming.pair()
        #expect(try await outgoingPairing.bonding)
        #expect(try await incomingPairing.bonding)
        #expect(try await outgoing.readValue(of: outgoingSecret) == [0x5E, 0xC2])
        #expect(try await incoming.readValue(of: incomingSecret) == [0x5E, 0xC2])
        // Each role's news goes to its own facade.
        await events.wait { if case let .paired(peripheral, bonded) = $0 { peripheral.link.id == outgoing.link.id && bonded } else { false } }
        await ours.events.wait { if case .paired = $0 { true } else { false } }
        #expect(ours.pairings == 1)
        // One bond cache and store: the second device (as a peripheral) and the remote central.
        let identities = Set(try #require(ours.manager.security).bonds.map(\.identity))
        #expect(identities.contains(peerAddress))
        #expect(identities.count == 2)
        #expect(await ours.bonds.bonds().count == 2)

        // Re-encryption from the shared bond on a new central link, without pairing again.
        await outgoing.disconnect()
        let again = try await ourCentral.connect(to: peerAddress)
        #expect(again.isBonded)
        try await again.encrypt()
        #expect(second.pairings == 1)
        #expect(incoming.security.level != .none)

        await again.disconnect()
        await incoming.disconnect()
        await ourCentral.shutdown()
        await remoteCentral.shutdown()
        await ours.manager.shutdown()
        await second.manager.shutdown()
    }
}
