import BLECore
import HCI
import L2CAP
import Testing
import TestSupport
import VirtualController
@testable import GAP

@Suite struct GAPCentralConnectionTests {
    let absent = DeviceAddress(BluetoothAddress("C0:FF:EE:00:00:01")!, type: .randomDevice)

    @Test func connectYieldsACentralLinkAndThePeripheralSeesAPeripheralLink() async throws {
        let fixture = try await CentralFixture()
        try await fixture.advertise()
        let (link, peripheralLink) = try await fixture.connect()
        #expect(link.role == .central)
        #expect(link.peer == fixture.peripheralIdentity)
        #expect(link.isOpen)
        #expect(peripheralLink.role == .peripheral)
        #expect(fixture.central.activeLinks == [link])
        await fixture.log.wait(for: 1, where: CentralLog.connected)
        // The link setup ran: the data length grew beyond the default 27 octets.
        await fixture.log.wait(for: 1) { if case .dataLengthChanged = $0 { true } else { false } }
        #expect(link.dataLength.maxTxOctets > 27)
        try await fixture.central.disconnect(link)
        await fixture.log.wait(for: 1, where: CentralLog.disconnected)
        await fixture.peripheralLog.wait(for: 1, where: GAPEventLog.disconnected)
        #expect(fixture.central.activeLinks.isEmpty)
        await fixture.shutdown()
    }

    @Test func connectingToAnAbsentPeerTimesOutAndCancels() async throws {
        let fixture = try await CentralFixture()
        let central = fixture.central, absent = absent
        let attempt = Task { () async throws(GAPError) -> Link in try await central.connect(to: absent, timeout: .seconds(3)) }
        // The timeout is armed once the controller accepted Create Connection.
        await fixture.clock.waitForTimers(atLeast: 1)
        // One initiator: a second attempt meanwhile is refused.
        await #expect(throws: GAPError.connectionInProgress(absent)) {
            try await central.connect(to: fixture.peripheralIdentity, timeout: .seconds(3))
        }
        fixture.clock.advance(by: .seconds(3))
        await #expect(throws: GAPError.connectionTimeout(absent, milliseconds: 3000)) { try await attempt.value }
        #expect(fixture.centralStation.host.links.openLinks.isEmpty)
        // The controller has no initiator left: a new attempt is accepted and succeeds.
        try await fixture.advertise()
        let link = try await central.connect(to: fixture.peripheralIdentity, timeout: .seconds(3))
        #expect(link.role == .central)
        await fixture.shutdown()
    }

    @Test func cancellingTheCallingTaskCancelsTheAttempt() async throws {
        let fixture = try await CentralFixture()
        let central = fixture.central, absent = absent
        let attempt = Task { () async throws(GAPError) -> Link in try await central.connect(to: absent, timeout: .seconds(30)) }
        await fixture.clock.waitForTimers(atLeast: 1)
        attempt.cancel()
        await #expect(throws: GAPError.connectionCancelled(absent)) { try await attempt.value }
        #expect(fixture.clock.pendingTimers == 0)
        #expect(fixture.centralStation.host.links.openLinks.isEmpty)
        await fixture.shutdown()
    }

    @Test func aFailedConnectionCompleteCarriesTheStatus() async throws {
        let fixture = try await CentralFixture()
        let central = fixture.central, absent = absent
        let attempt = Task { () async throws(GAPError) -> Link in try await central.connect(to: absent, timeout: .seconds(30)) }
        await fixture.clock.waitForTimers(atLeast: 1)
        fixture.centralStation.controller.injectEvent(.le(.connectionComplete(LEConnectionCompleteEvent(
            status: .failedToEstablish, handle: 0, role: .central, peer: absent, interval: 0, latency: 0, supervisionTimeout: 0))))
        await #expect(throws: GAPError.connectionFailed(absent, .failedToEstablish)) { try await attempt.value }
        await fixture.shutdown()
    }

    @Test func scanningPausesWhileInitiatingWhenTheControllerCannotDoBoth() async throws {
        let fixture = try await CentralFixture(scansWhileInitiating: false)
        try await fixture.advertise()
        try await fixture.central.startScanning(ScanParameters(active: false))
        let (link, _) = try await fixture.connect()
        #expect(link.role == .central)
        // `connect` returns after scanning was resumed.
        #expect(fixture.centralStation.controller.isScanningOnRadio)
        #expect(await fixture.central.isScanning)
        await fixture.shutdown()
    }

    @Test func encryptionStartsWhenThePeripheralHasTheKey() async throws {
        let fixture = try await CentralFixture()
        let key: [UInt8] = Array(1...16)
        let properties = EncryptionKeyProperties(keySize: 16, authenticated: false, secureConnections: true)
        await fixture.peripheral.setLongTermKeyProvider { _, random, ediv in
            random == 0x0102_0304_0506_0708 && ediv == 0x1234 ? LongTermKey(value: key, properties: properties) : nil
        }
        try await fixture.advertise()
        let (link, peripheralLink) = try await fixture.connect()
        try await fixture.central.startEncryption(on: link, key: key, random: 0x0102_0304_0506_0708, ediv: 0x1234, properties: properties)
        await fixture.log.wait(for: 1, where: CentralLog.encryption)
        guard case let .encryptionChanged(changed, status) = try #require(fixture.log.all.first(where: CentralLog.encryption)) else { return }
        #expect(changed == link)
        #expect(status == .success)
        #expect(link.security.isEncrypted)
        await fixture.peripheralLog.wait(for: 1) { if case .encryptionChanged = $0 { true } else { false } }
        #expect(peripheralLink.security.isEncrypted)
        await fixture.shutdown()
    }

    @Test func encryptionIsRefusedWhenThePeripheralHasNoKey() async throws {
        let fixture = try await CentralFixture()
        await fixture.peripheral.setLongTermKeyProvider { _, _, _ in nil }
        try await fixture.advertise()
        let (link, _) = try await fixture.connect()
        let properties = EncryptionKeyProperties(keySize: 16, authenticated: false, secureConnections: false)
        await #expect(throws: GAPError.invalidKeyLength(15)) {
            try await fixture.central.startEncryption(on: link, key: Array(repeating: 0, count: 15), random: 0, ediv: 0, properties: properties)
        }
        try await fixture.central.startEncryption(on: link, key: Array(repeating: 7, count: 16), random: 1, ediv: 2, properties: properties)
        await fixture.log.wait(for: 1, where: CentralLog.encryption)
        guard case let .encryptionChanged(_, status) = try #require(fixture.log.all.first(where: CentralLog.encryption)) else { return }
        #expect(status == .pinOrKeyMissing)
        #expect(!link.security.isEncrypted)
        #expect(link.isOpen)
        await fixture.shutdown()
    }

    @Test func aPeripheralsParameterUpdateRequestIsAnsweredAndApplied() async throws {
        let fixture = try await CentralFixture()
        let central = fixture.central
        let centralL2CAP = L2CAPFixedChannels(acl: fixture.centralStation.host.acl, clock: ManualClock())
        centralL2CAP.attach(to: fixture.centralStation.host.links)
        centralL2CAP.setConnectionParameterRequestHandler { link, parameters in
            central.connectionParameterUpdateRequested(parameters, on: link)
        }
        let peripheralL2CAP = L2CAPFixedChannels(acl: fixture.peripheralStation.host.acl, clock: ManualClock())
        peripheralL2CAP.attach(to: fixture.peripheralStation.host.links)
        try await fixture.advertise()
        let (link, peripheralLink) = try await fixture.connect()
        let wanted = LEConnectionParameters(intervalMin: 80, intervalMax: 100, latency: 2, supervisionTimeout: 600)
        #expect(await peripheralL2CAP.requestConnectionParameterUpdate(wanted, on: peripheralLink) == .accepted)
        await fixture.log.wait(for: 1, where: CentralLog.updated)
        #expect((80...100).contains(link.parameters.interval))
        #expect(link.parameters.latency == 2)
        #expect(link.parameters.supervisionTimeout == 600)
        // Out of range (latency too large for the timeout): rejected, nothing applied.
        let invalid = LEConnectionParameters(intervalMin: 80, intervalMax: 100, latency: 30, supervisionTimeout: 600)
        #expect(await peripheralL2CAP.requestConnectionParameterUpdate(invalid, on: peripheralLink) == .rejected)
        #expect(link.parameters.latency == 2)
        await fixture.shutdown()
    }
}
