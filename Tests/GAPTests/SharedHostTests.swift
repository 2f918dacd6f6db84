import BLECore
import HCI
import Testing
import TestSupport
import VirtualController
@testable import GAP

/// A peripheral role and a central role on one host: each sees only its own links.
@Suite struct SharedHostTests {
    @Test func peripheralAndCentralShareOneHost() async throws {
        let fixture = try await CentralFixture()
        let host = fixture.centralStation.host
        let ownAddress = BluetoothAddress("C4:00:00:00:00:AA")!
        let ownPeripheral = GAPPeripheral(host: host, configuration: .init(addressPolicy: .randomStatic(ownAddress)))
        let ownPeripheralLog = GAPEventLog.recording(ownPeripheral)
        try await ownPeripheral.start()
        try await ownPeripheral.startAdvertising(AdvertisingContent(localName: "Shared"))
        try await fixture.advertise()
        // Scanning while advertising.
        try await fixture.central.startScanning(ScanParameters(active: true))
        await fixture.log.wait(for: 1, where: CentralLog.report(from: fixture.peripheralIdentity))
        #expect(fixture.centralStation.controller.isAdvertisingOnRadio)
        // Our central connects out; our peripheral is unaffected and keeps advertising.
        let outgoing = try await fixture.central.connect(to: fixture.peripheralIdentity, timeout: .seconds(5))
        #expect(outgoing.role == .central)
        #expect(ownPeripheral.activeLinks.isEmpty)
        // Re-asking runs the peripheral's driver to the end (the barrier): one free slot, so it advertises.
        try await ownPeripheral.startAdvertising(AdvertisingContent(localName: "Shared"))
        #expect(await ownPeripheral.isAdvertising)
        // A remote central connects in: the peripheral role gets it, the central role does not.
        let remote = fixture.radio.makeCentral(address: DeviceAddress(BluetoothAddress("C1:00:00:00:00:01")!, type: .randomDevice))
        _ = try await remote.connect(to: DeviceAddress(ownAddress, type: .randomDevice))
        await ownPeripheralLog.wait(for: 1, where: GAPEventLog.connected)
        let incoming = try #require(ownPeripheral.activeLinks.first)
        #expect(incoming.role == .peripheral)
        #expect(fixture.central.activeLinks == [outgoing])
        #expect(ownPeripheralLog.count(where: GAPEventLog.connected) == 1)
        #expect(fixture.log.count(where: CentralLog.connected) == 1)
        // Closing the outgoing link is the central's news only.
        try await fixture.central.disconnect(outgoing)
        await fixture.log.wait(for: 1, where: CentralLog.disconnected)
        #expect(ownPeripheralLog.count(where: GAPEventLog.disconnected) == 0)
        #expect(incoming.isOpen)
        await fixture.shutdown()
    }
}
