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

/// A central of our own, started on its own controller on `radio`.
func makeCentral(on radio: VirtualRadio, address: String = "C0:DE:00:00:00:21", security: SecuritySetup? = nil,
                 clock: any HostClock = SystemClock.shared) async throws -> CentralManager {
    let controller = radio.makeController(configuration: .init(address: BluetoothAddress(address)!))
    var configuration = CentralManager.Configuration()
    configuration.security = security
    configuration.clock = clock
    let central = CentralManager(transport: controller, configuration: configuration)
    try await central.start()
    return central
}

/// The central's events, recorded for waiting on.
func record(_ central: CentralManager) -> Recorder<CentralEvent> {
    let events = Recorder<CentralEvent>()
    Task { for await event in central.events { events.append(event) } }
    return events
}

let peerAddress = DeviceAddress(TestPeripheral.address, type: .randomDevice)

@Suite(.scaledTimeLimit(minutes: 1)) struct CentralRoleTests {
    @Test func anActiveScanReportsTheNameServicesAndScanResponseAndAPassiveScanNoScanResponse() async throws {
        let peripheral = try await TestPeripheral()
        let central = try await makeCentral(on: peripheral.radio)
        let events = record(central)
        try await central.scanForPeripherals()
        await events.wait { if case let .discovered(report) = $0 { report.peer == peerAddress && report.scanResponseData != nil } else { false } }
        let merged = try #require(events.all.compactMap { if case let .discovered(report) = $0, report.scanResponseData != nil { report } else { nil } }.last)
        #expect(merged.advertisement.localName == TestPeripheral.name)
        #expect(merged.advertisement.serviceUUIDs.contains(BluetoothUUID(0x180D)))
        #expect(merged.advertisement.serviceUUIDs.contains(TestPeripheral.customService))
        #expect(merged.kind.isConnectable)
        await central.stopScan()

        let passive = try await makeCentral(on: peripheral.radio, address: "C0:DE:00:00:00:22")
        let passiveEvents = record(passive)
        try await passive.scanForPeripherals(parameters: ScanParameters(active: false))
        await passiveEvents.wait { if case let .discovered(report) = $0 { report.peer == peerAddress } else { false } }
        await passive.stopScan()
        #expect(passiveEvents.all.allSatisfy { if case let .discovered(report) = $0 { report.scanResponseData == nil } else { true } })
        await passive.shutdown()
        await central.shutdown()
        await peripheral.manager.shutdown()
    }

    @Test func aServiceFilterKeepsOnlyDevicesThatAdvertiseTheService() async throws {
        let peripheral = try await TestPeripheral()
        let central = try await makeCentral(on: peripheral.radio)
        let events = record(central)
        try await central.scanForPeripherals(withServices: [BluetoothUUID(0x1234)])
        // A second scan with the right filter is the barrier: the wrong one had the same reports to see.
        let other = try await makeCentral(on: peripheral.radio, address: "C0:DE:00:00:00:23")
        let otherEvents = record(other)
        try await other.scanForPeripherals(withServices: [TestPeripheral.customService])
        await otherEvents.wait { if case .discovered = $0 { true } else { false } }
        await central.stopScan()
        #expect(events.count { if case .discovered = $0 { true } else { false } } == 0)
        await other.shutdown()
        await central.shutdown()
        await peripheral.manager.shutdown()
    }

    @Test func findConnectDiscoverReadLongWriteLongAndWriteWithoutResponse() async throws {
        let peripheral = try await TestPeripheral()
        let central = try await makeCentral(on: peripheral.radio)
        let found = try await central.find(TestPeripheral.address, timeout: .seconds(5))
        #expect(found.peer == peerAddress)
        let remote = try await central.connect(to: found.peer)
        #expect(remote.link.role == .central)
        #expect(try await remote.exchangeMTU() == 247)

        let services = try await remote.discoverServices()
        for uuid in [BluetoothUUID(0x1800), BluetoothUUID(0x1801), BluetoothUUID(0x180D), BluetoothUUID(0x1809), TestPeripheral.customService] {
            #expect(services.contains { $0.uuid == uuid }, "service \(uuid) not discovered")
        }
        let custom = try #require(try await remote.discoverServices([TestPeripheral.customService]).first)
        let characteristics = try await remote.discoverCharacteristics(of: custom)
        let long = try #require(characteristics.first { $0.uuid == TestPeripheral.longUUID })
        let writable = try #require(characteristics.first { $0.uuid == TestPeripheral.writableUUID })
        #expect(try await remote.readValue(of: long) == TestPeripheral.longValue)

        let longWrite = (0..<400).map { UInt8(truncatingIfNeeded: $0) }
        try await remote.writeValue(longWrite, to: writable)
        try await remote.writeValue([0x01, 0x02], to: writable)
        // Our server queues at most 32 commands while the application is busy and drops beyond that
        // (no ATT flow control exists for them): stay under it so every write must arrive, in order.
        for n in 0..<30 { try await remote.writeWithoutResponseWhenReady([UInt8(n)], to: writable) }
        // A request after the commands is the barrier: it is answered after they were handled.
        try await remote.writeValue([0xEE], to: writable)
        let commands: [[UInt8]] = (0..<30).map { [UInt8($0)] }
        let expectedWrites: [[UInt8]] = [longWrite, [0x01, 0x02]] + commands + [[0xEE]]
        #expect(peripheral.writes == expectedWrites)

        await remote.disconnect()
        #expect(!remote.isConnected)
        await central.shutdown()
        await peripheral.manager.shutdown()
    }

    @Test func notificationsAndIndicationsArriveAndIndicationsAreConfirmed() async throws {
        let peripheral = try await TestPeripheral()
        let central = try await makeCentral(on: peripheral.radio)
        let remote = try await central.connect(to: try await central.find(TestPeripheral.address, timeout: .seconds(5)).peer)
        var characteristics: [RemoteCharacteristic] = []
        for service in try await remote.discoverServices() { characteristics += try await remote.discoverCharacteristics(of: service) }
        let measurement = try #require(characteristics.first { $0.uuid == BluetoothUUID(0x2A37) })
        let temperature = try #require(characteristics.first { $0.uuid == BluetoothUUID(0x2A1C) })
        var updates = remote.updates.makeAsyncIterator()
        try await remote.setNotifyValue(true, for: measurement)
        try await remote.setNotifyValue(true, for: temperature)
        await peripheral.waitForSubscription(to: TestPeripheral.temperature)

        #expect(peripheral.manager.updateValue([0x06, 72], for: TestPeripheral.measurement))
        #expect(await updates.next() == ValueUpdate(valueHandle: measurement.valueHandle, value: [0x06, 72], kind: .notification))
        try await peripheral.manager.updateValueWaitingForRoom([0x00, 0x6E, 0x01, 0x00, 0xFF], for: TestPeripheral.temperature)
        #expect(await updates.next() == ValueUpdate(valueHandle: temperature.valueHandle, value: [0x00, 0x6E, 0x01, 0x00, 0xFF], kind: .indication))
        await peripheral.events.wait { if case let .indicationConfirmed(_, id) = $0 { id == TestPeripheral.temperature } else { false } }

        try await remote.setNotifyValue(false, for: measurement)
        await peripheral.events.wait { if case let .unsubscribed(_, id) = $0 { id == TestPeripheral.measurement } else { false } }
        await remote.disconnect()
        #expect(await updates.next() == nil)
        await central.shutdown()
        await peripheral.manager.shutdown()
    }

    @Test func aServiceChangedIndicationIsReportedWithItsRange() async throws {
        let peripheral = try await TestPeripheral()
        let central = try await makeCentral(on: peripheral.radio)
        let events = record(central)
        let remote = try await central.connect(to: try await central.find(TestPeripheral.address, timeout: .seconds(5)).peer)
        let gatt = try #require(try await remote.discoverServices([BluetoothUUID(0x1801)]).first)
        let serviceChanged = try #require(try await remote.discoverCharacteristics([BluetoothUUID(0x2A05)], of: gatt).first)
        try await remote.setNotifyValue(true, for: serviceChanged)
        await peripheral.events.wait { if case .subscribed = $0 { true } else { false } }

        try await peripheral.manager.add(GATTService(uuid: BluetoothUUID(0x180F), characteristics: [
            GATTCharacteristic(id: CharacteristicID("battery.level"), uuid: BluetoothUUID(0x2A19), properties: [.read],
                               permissions: [.readable], value: .static([100])),
        ]))
        await events.wait { if case .servicesChanged = $0 { true } else { false } }
        let battery = try #require(try await remote.discoverServices([BluetoothUUID(0x180F)]).first)
        let level = try #require(try await remote.discoverCharacteristics(of: battery).first)
        #expect(try await remote.readValue(of: level) == [100])
        await remote.disconnect()
        await central.shutdown()
        await peripheral.manager.shutdown()
    }

    @Test func aReadThatNeedsEncryptionFailsThenPairingAndReencryptionWithoutPairingSucceed() async throws {
        let peripheral = try await TestPeripheral(secured: true)
        let store = InMemoryBondStore()
        let central = try await makeCentral(on: peripheral.radio, security: SecuritySetup(store: store))
        var remote = try await central.connect(to: try await central.find(TestPeripheral.address, timeout: .seconds(5)).peer)
        let secret = try #require(try await characteristic(TestPeripheral.secretUUID, on: remote))
        await #expect(throws: GATTClientError.self) { try await remote.readValue(of: secret) }

        let result = try await remote.pair()
        #expect(result.secureConnections)
        #expect(result.bonding)
        #expect(remote.security.level != .none)
        #expect(try await remote.readValue(of: secret) == [0x5E, 0xC2])
        await peripheral.events.wait { if case .paired = $0 { true } else { false } }
        await remote.disconnect()

        remote = try await central.connect(to: peerAddress)
        #expect(remote.isBonded)
        try await remote.encrypt()
        let again = try #require(try await characteristic(TestPeripheral.secretUUID, on: remote))
        #expect(try await remote.readValue(of: again) == [0x5E, 0xC2])
        #expect(peripheral.pairings == 1, "re-encryption must not pair again")
        await remote.disconnect()
        await central.shutdown()
        await peripheral.manager.shutdown()
    }

    /// Method Confusion's precondition, closed: a keyboard-display peripheral whose agent accepts a
    /// numeric comparison with no one looking stores an unauthenticated key, so what needs
    /// authentication stays locked, though the central's user compared on its side.
    @Test func aComparisonNoOneLookedAtUnlocksNothingThatNeedsAuthentication() async throws {
        var keyboardDisplay = SecurityManager.Configuration()
        keyboardDisplay.policy.ioCapability = .keyboardDisplay
        let peripheral = try await TestPeripheral(secured: true, security: keyboardDisplay, agent: AutomaticPairingAgent())
        let central = try await makeCentral(on: peripheral.radio, security: SecuritySetup(configuration: keyboardDisplay, store: InMemoryBondStore(),
                                                                                          agent: ComparingUser()))
        let remote = try await central.connect(to: try await central.find(TestPeripheral.address, timeout: .seconds(5)).peer)
        let result = try await remote.pair()
        #expect(result.method == .numericComparison && result.secureConnections)
        await peripheral.events.wait { if case .paired = $0 { true } else { false } }
        let bond = try #require(await peripheral.bonds.bonds().first)
        #expect(bond.ltk?.authenticated == false)
        let connected = peripheral.events.all.compactMap { if case let .centralConnected(central) = $0 { central } else { nil } }
        #expect(connected.first?.link.security.level == .unauthenticated)

        let secret = try #require(try await characteristic(TestPeripheral.secretUUID, on: remote))
        #expect(try await remote.readValue(of: secret) == [0x5E, 0xC2])
        let authenticated = try #require(try await characteristic(TestPeripheral.authenticatedSecretUUID, on: remote))
        await #expect {
            try await remote.readValue(of: authenticated)
        } throws: { error in
            guard case let .attError(code, _, _) = error as? GATTClientError else { return false }
            return code == .insufficientAuthentication
        }
        await remote.disconnect()
        await central.shutdown()
        await peripheral.manager.shutdown()
    }

    /// The pairing functions hash both devices' addresses (f6, c1), and Identity Address
    /// Information tells the central whom it bonded with: a peripheral on its public address must
    /// use the controller's address in both, not an unset one.
    @Test func aPeripheralOnItsPublicAddressPairsAndIsBondedUnderThatAddress() async throws {
        let publicAddress = BluetoothAddress("00:1B:DC:00:00:2F")!
        let peripheral = try await TestPeripheral(secured: true, controllerAddress: publicAddress, usesPublicAddress: true)
        let store = InMemoryBondStore()
        let central = try await makeCentral(on: peripheral.radio, security: SecuritySetup(store: store))
        let discovery = try await central.find(publicAddress, timeout: .seconds(5))
        #expect(discovery.peer == DeviceAddress(publicAddress, type: .publicDevice))
        let remote = try await central.connect(to: discovery.peer)
        let result = try await remote.pair()
        #expect(result.secureConnections)
        let secret = try #require(try await characteristic(TestPeripheral.secretUUID, on: remote))
        #expect(try await remote.readValue(of: secret) == [0x5E, 0xC2])
        #expect(await store.bonds().map(\.identity) == [DeviceAddress(publicAddress, type: .publicDevice)])
        await remote.disconnect()
        await central.shutdown()
        await peripheral.manager.shutdown()
    }

    @Test func connectingToADeviceThatIsNotThereTimesOutOnTheInjectedClock() async throws {
        let radio = VirtualRadio(label: "central-timeout")
        let clock = ManualClock()
        let central = try await makeCentral(on: radio, clock: clock)
        let start = clock.now
        let attempt = Task { () async throws(CentralError) -> RemotePeripheral in
            try await central.connect(to: DeviceAddress(BluetoothAddress("C5:00:00:00:00:99")!, type: .randomDevice), timeout: .seconds(5))
        }
        // Advancing while an HCI command's own timeout is the earliest would fire that one instead:
        // wait until the connection timeout is what comes next.
        await clock.waitUntilNextDeadline(is: start + .seconds(5))
        clock.advance(by: .seconds(5))
        await #expect(throws: CentralError.self) { try await attempt.value }
        #expect(central.connectedPeripherals.isEmpty)
        await central.shutdown()
    }

    @Test func anUnansweredRequestTimesOutAfter30VirtualSecondsRetiresTheBearerAndDropsTheLink() async throws {
        let peripheral = try await TestPeripheral()
        let clock = ManualClock()
        let central = try await makeCentral(on: peripheral.radio, clock: clock)
        let events = record(central)
        let remote = try await central.connect(to: try await central.find(TestPeripheral.address, timeout: .seconds(5)).peer)
        let unanswered = try #require(try await characteristic(TestPeripheral.unansweredUUID, on: remote))
        let reading = Task { () async throws(GATTClientError) -> [UInt8] in try await remote.readValue(of: unanswered) }
        await peripheral.events.wait { if case .readRequest = $0 { true } else { false } }
        // The transaction timer is armed before the request is sent, so it exists once the peripheral
        // has the request. The ACL watchdog that fires on the way must find the request's packet
        // completed, or it would drop the link first: wait for the controller's completion.
        while central.host.acl.packetsInFlight > 0 { await Task.yield() }
        clock.advance(by: .seconds(30))
        await #expect(throws: GATTClientError.timeout) { try await reading.value }
        // No further request may use a bearer whose transaction timed out (Vol 3 Part F 3.3.3). The
        // link drop that follows the timeout races this request, so it finds the bearer retired or
        // the link already gone; either way it fails.
        let later = await #expect(throws: GATTClientError.self) { try await remote.discoverServices() }
        #expect(later == .bearerClosed || later == .disconnected, "\(String(describing: later))")
        await events.wait { if case .disconnected = $0 { true } else { false } }
        #expect(!remote.isConnected)
        await central.shutdown()
        await peripheral.manager.shutdown()
    }

    private func characteristic(_ uuid: BluetoothUUID, on remote: RemotePeripheral) async throws -> RemoteCharacteristic? {
        for service in try await remote.discoverServices() {
            if let found = try await remote.discoverCharacteristics([uuid], of: service).first { return found }
        }
        return nil
    }
}

/// A central's user who compares the numbers and confirms them.
struct ComparingUser: PairingAgent {
    func mayPair(_ link: Link, request: PairingFeatures) async -> PairingDecision { .allow }
    func display(passkey: UInt32, on link: Link) async {}
    func enterPasskey(on link: Link) async -> UInt32? { nil }
    func confirm(numericComparison value: UInt32, on link: Link) async -> ComparisonAnswer { .confirmedByPerson }
}
