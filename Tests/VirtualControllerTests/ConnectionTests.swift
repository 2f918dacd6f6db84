import BLECore
import HCI
import Testing
@testable import VirtualController

@Suite struct ConnectionTests {
    let radio = VirtualRadio()

    @Test func bothRolesGetTheirConnectionCompleteForm() async throws {
        let central = try await TestHost(radio, address: "00:00:00:00:01:01")
        let peripheral = try await TestHost(radio, address: "00:00:00:00:01:02")
        try await central.initialize()
        // Without Enhanced Connection Complete enabled the legacy event is used.
        try await peripheral.initialize(leMask: HCILESetEventMask.hostDefault.mask & ~HCILESetEventMask.enhancedConnectionComplete)
        let random = BluetoothAddress("D0:00:00:00:01:02")!
        try await peripheral.advertise(ownRandom: random)
        let parameters = LEConnectionParameters(intervalMin: 0x18, intervalMax: 0x28, latency: 2, supervisionTimeout: 0x100)
        #expect(try await central.status(HCILECreateConnection(peer: DeviceAddress(random, type: .randomDevice), parameters: parameters)) == .success)
        let c = try await central.connectionComplete()
        let p = try await peripheral.connectionComplete()
        #expect(c.form == .enhanced && c.role == .central && c.peer == DeviceAddress(random, type: .randomDevice))
        #expect(p.form == .legacy && p.role == .peripheral && p.peer == central.publicAddress)
        #expect(c.interval == 0x28 && c.latency == 2 && c.supervisionTimeout == 0x100)
        #expect(p.interval == 0x28 && p.latency == 2 && p.supervisionTimeout == 0x100)
        // Legacy advertising stopped with the connection.
        let observer = radio.makeCentral(address: DeviceAddress(BluetoothAddress("C0:00:00:00:01:09")!, type: .randomDevice))
        #expect(await observer.scan(for: .milliseconds(20)).isEmpty)

        // Read Remote Version Information and connection update.
        #expect(try await central.status(HCIReadRemoteVersionInformation(handle: c.handle)) == .success)
        let version = try await central.event("remote version") { if case .readRemoteVersionComplete = $0 { return true }; return false }
        #expect(version == .readRemoteVersionComplete(HCIReadRemoteVersionCompleteEvent(handle: c.handle, version: 0x0B, manufacturer: 0x05F1, subversion: 1)))
        let update = LEConnectionParameters(intervalMin: 0x06, intervalMax: 0x10, latency: 0, supervisionTimeout: 0x48)
        #expect(try await central.status(HCILEConnectionUpdate(handle: c.handle, parameters: update)) == .success)
        for (host, handle) in [(central, c.handle), (peripheral, p.handle)] {
            let event = try await host.event("connection update") { if case .le(.connectionUpdateComplete) = $0 { return true }; return false }
            #expect(event == .le(.connectionUpdateComplete(LEConnectionUpdateCompleteEvent(handle: handle, interval: 0x10, latency: 0, supervisionTimeout: 0x48))))
        }
    }

    @Test func disconnectionReasonsOnBothSides() async throws {
        let central = try await TestHost(radio, address: "00:00:00:00:02:01")
        let peripheral = try await TestHost(radio, address: "00:00:00:00:02:02")
        try await central.initialize()
        try await peripheral.initialize()
        let (ch, ph) = try await connect(central, to: peripheral)
        #expect(try await central.status(HCIDisconnect(handle: ch, reason: .remoteUserTerminated)) == .success)
        #expect(try await central.disconnection() == HCIDisconnectionCompleteEvent(handle: ch, reason: .localHostTerminated))
        #expect(try await peripheral.disconnection() == HCIDisconnectionCompleteEvent(handle: ph, reason: .remoteUserTerminated))
        #expect(central.controller.connectionHandles.isEmpty && peripheral.controller.connectionHandles.isEmpty)
        #expect(try await central.status(HCIDisconnect(handle: ch)) == .unknownConnectionIdentifier)
    }

    @Test func createConnectionWaitsForTheAdvertiserAndCanBeCancelled() async throws {
        let central = try await TestHost(radio, address: "00:00:00:00:03:01")
        let peripheral = try await TestHost(radio, address: "00:00:00:00:03:02")
        try await central.initialize()
        try await peripheral.initialize()
        #expect(try await central.status(HCILECreateConnection(peer: peripheral.publicAddress)) == .success)
        #expect(try await central.status(HCILECreateConnection(peer: peripheral.publicAddress)) == .commandDisallowed)
        try await central.sync()
        #expect(!central.inbox.pending.contains { $0.event?.connectionComplete != nil })
        // The target shows up later: the pending create completes.
        try await peripheral.advertise()
        #expect(try await central.connectionComplete().status == .success)
        #expect(try await peripheral.connectionComplete().role == .peripheral)

        let absent = DeviceAddress(BluetoothAddress("00:00:00:00:03:99")!, type: .publicDevice)
        #expect(try await central.status(HCILECreateConnection(peer: absent)) == .success)
        #expect(try await central.run(HCILECreateConnectionCancel()).status == .success)
        let cancelled = try await central.connectionComplete()
        #expect(cancelled.status == .unknownConnectionIdentifier)
    }

    @Test func connectionLimitIsEnforced() async throws {
        let central = try await TestHost(radio, address: "00:00:00:00:04:01") { $0.maxConnections = 1 }
        let first = try await TestHost(radio, address: "00:00:00:00:04:02")
        let second = try await TestHost(radio, address: "00:00:00:00:04:03")
        for host in [central, first, second] { try await host.initialize() }
        let (handle, _) = try await connect(central, to: first)
        try await second.advertise()
        #expect(try await central.status(HCILECreateConnection(peer: second.publicAddress)) == .connectionLimitExceeded)
        #expect(handle != 0)
    }

    @Test func handlesAreUniquePerController() async throws {
        let central = try await TestHost(radio, address: "00:00:00:00:05:01")
        let a = try await TestHost(radio, address: "00:00:00:00:05:02")
        let b = try await TestHost(radio, address: "00:00:00:00:05:03")
        for host in [central, a, b] { try await host.initialize() }
        let (h1, _) = try await connect(central, to: a)
        let (h2, _) = try await connect(central, to: b)
        #expect(h1 != h2)
        #expect(central.controller.connectionHandles == [h1, h2].sorted())
    }

    @Test func resetDropsLinksAndThePeerTimesOut() async throws {
        let central = try await TestHost(radio, address: "00:00:00:00:06:01")
        let peripheral = try await TestHost(radio, address: "00:00:00:00:06:02")
        try await central.initialize()
        try await peripheral.initialize()
        let (_, ph) = try await connect(central, to: peripheral)
        #expect(try await central.run(HCIReset()).status == .success)
        #expect(try await peripheral.disconnection() == HCIDisconnectionCompleteEvent(handle: ph, reason: .connectionTimeout))
        #expect(central.controller.connectionHandles.isEmpty)
        try await central.sync()
        #expect(!central.inbox.pending.contains { $0.event?.disconnection != nil })
        // Reset restored the default masks: LE events are off until the host enables LE Meta again.
        try await peripheral.advertise()
        try await central.scan(active: false)
        try await central.sync()
        #expect(!central.inbox.pending.contains { $0.event?.isLE ?? false })
    }

    @Test func closeAndDropLinkEndTheTransport() async throws {
        let central = try await TestHost(radio, address: "00:00:00:00:07:01")
        let peripheral = try await TestHost(radio, address: "00:00:00:00:07:02")
        try await central.initialize()
        try await peripheral.initialize()
        let (_, ph) = try await connect(central, to: peripheral)
        central.controller.close()
        let closed = await central.inbox.next(timeout: TestHost.timeout) { if case .closed = $0 { return true }; return false }
        guard case .closed(nil)? = closed else { Issue.record("expected .closed(nil), got \(String(describing: closed))"); return }
        #expect(try await peripheral.disconnection() == HCIDisconnectionCompleteEvent(handle: ph, reason: .connectionTimeout))
        #expect(throws: HCITransportError.self) { try central.send(HCIReset().packet) }

        peripheral.controller.dropLink()
        let dropped = await peripheral.inbox.next(timeout: TestHost.timeout) { if case .closed = $0 { return true }; return false }
        guard case .closed(.disconnected?)? = dropped else { Issue.record("expected .closed(.disconnected), got \(String(describing: dropped))"); return }
    }

    @Test func virtualCentralConnectsToAPeripheralHost() async throws {
        let peripheral = try await TestHost(radio, address: "00:00:00:00:08:02")
        try await peripheral.initialize()
        let central = radio.makeCentral(address: DeviceAddress(BluetoothAddress("C0:00:00:00:08:01")!, type: .randomDevice))
        await #expect(throws: VirtualCentralError.self) {
            _ = try await central.connect(to: peripheral.publicAddress, timeout: .milliseconds(50))
        }
        try await peripheral.advertise()
        let link = try await central.connect(to: peripheral.publicAddress)
        let p = try await peripheral.connectionComplete()
        #expect(p.role == .peripheral && p.peer == central.address && p.handle == link.peripheralHandle)
        link.disconnect(reason: .remoteUserTerminated)
        #expect(try await peripheral.disconnection() == HCIDisconnectionCompleteEvent(handle: p.handle, reason: .remoteUserTerminated))
        #expect(await link.disconnected == .localHostTerminated)
        #expect(throws: VirtualCentralError.self) { try link.send(l2capPDU: l2cap([1])) }
    }

    @Test func peripheralDisconnectReachesVirtualCentral() async throws {
        let peripheral = try await TestHost(radio, address: "00:00:00:00:09:02")
        try await peripheral.initialize()
        try await peripheral.advertise()
        let central = radio.makeCentral(address: DeviceAddress(BluetoothAddress("C0:00:00:00:09:01")!, type: .randomDevice))
        let link = try await central.connect(to: peripheral.publicAddress)
        let p = try await peripheral.connectionComplete()
        #expect(try await peripheral.status(HCIDisconnect(handle: p.handle, reason: .remotePowerOff)) == .success)
        #expect(await link.disconnected == .remotePowerOff)
    }

    @Test func directedAdvertisingReachesOnlyItsTargetAndTimesOut() async throws {
        let advertiser = try await TestHost(radio, address: "00:00:00:00:0A:01")
        let target = try await TestHost(radio, address: "00:00:00:00:0A:02")
        let bystander = try await TestHost(radio, address: "00:00:00:00:0A:03")
        for host in [advertiser, target, bystander] { try await host.initialize() }
        let directed = HCILESetAdvertisingParameters(type: .connectableDirectedHighDuty, peerAddressType: .publicDevice,
                                                     peerAddress: target.controller.configuration.address)
        // Scanners listen before the advertiser starts: the 1.28 s limit runs on the wall clock and a
        // loaded machine could spend it setting up scanning, so the first ADV_DIRECT_IND is the barrier.
        try await target.scan(active: false)
        try await bystander.scan(active: false)
        #expect(try await advertiser.run(directed).status == .success)
        #expect(try await advertiser.run(HCILESetAdvertisingEnable(enable: true)).status == .success)
        let event = try await target.event("ADV_DIRECT_IND") { $0.advertisingReports?.first?.eventType == .advDirectInd }
        #expect(event.advertisingReports?.first?.address == advertiser.publicAddress)
        try await bystander.sync()
        #expect(!bystander.inbox.pending.contains { $0.event?.advertisingReports != nil })
        // Nobody connects: after 1.28 s the advertiser reports Advertising Timeout.
        let timeout = try await advertiser.event("advertising timeout", timeout: TestHost.timeout) { $0.connectionComplete != nil }
        #expect(timeout.connectionComplete?.status == .advertisingTimeout)
    }
}
