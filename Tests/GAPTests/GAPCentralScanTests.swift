import BLECore
import HCI
import Testing
import TestSupport
import VirtualController
@testable import GAP

@Suite struct GAPCentralScanTests {
    @Test func activeScanMergesTheScanResponseWithTheAdvertisement() async throws {
        let fixture = try await CentralFixture()
        let plan = try await fixture.advertise()
        try #require(!plan.scanResponseData.isEmpty)
        try await fixture.central.startScanning(ScanParameters(active: true))
        let peer = fixture.peripheralIdentity
        await fixture.log.wait(for: 1) { if case let .scanReport(r) = $0 { r.peer == peer && r.isScanResponse } else { false } }
        let reports = CentralLog.reports(fixture.log, from: peer)
        let first = try #require(reports.first)
        #expect(!first.isScanResponse)
        #expect(first.kind == .connectableUndirected)
        #expect(first.advertisingData == plan.advertisingData)
        let merged = try #require(reports.first { $0.isScanResponse })
        #expect(merged.advertisingData == plan.advertisingData)
        #expect(merged.scanResponseData == plan.scanResponseData)
        #expect(merged.rssi == -50)
        #expect(merged.advertisement.localName == "Environment-Sensor-12")
        #expect(merged.advertisement.serviceUUIDs.contains(BluetoothUUID(0x181A)))
        #expect(merged.advertisement.serviceData[BluetoothUUID(0x181A)] == [0x2C, 0x09])
        #expect(merged.advertisement.manufacturerData == [.init(companyIdentifier: 0x05F1, data: [0x01, 0x02])])
        try await fixture.central.stopScanning()
        #expect(!fixture.centralStation.controller.isScanningOnRadio)
        await fixture.shutdown()
    }

    @Test func passiveScanGetsNoScanResponse() async throws {
        let fixture = try await CentralFixture()
        try await fixture.advertise()
        try await fixture.central.startScanning(ScanParameters(active: false))
        // Two advertising events: a scan response would have come right after the first.
        await fixture.log.wait(for: 2, where: CentralLog.report(from: fixture.peripheralIdentity))
        let reports = CentralLog.reports(fixture.log, from: fixture.peripheralIdentity)
        #expect(reports.allSatisfy { !$0.isScanResponse && $0.scanResponseData == nil })
        // What is decoded is the advertising data alone.
        #expect(reports.allSatisfy { $0.advertisement == AdvertisementData(decoding: $0.advertisingData) })
        await fixture.shutdown()
    }

    @Test func hostDuplicateFilteringReportsOnlyChanges() async throws {
        let fixture = try await CentralFixture()
        try await fixture.central.startScanning(ScanParameters(active: true, filterDuplicates: true))
        let peer = DeviceAddress(BluetoothAddress("D0:00:00:00:00:01")!, type: .randomDevice)
        let marker = DeviceAddress(BluetoothAddress("D0:00:00:00:00:02")!, type: .randomDevice)
        let controller = fixture.centralStation.controller
        func inject(_ type: LEAdvertisingReport.EventType, _ address: DeviceAddress, _ data: [UInt8], rssi: Int8 = -40) {
            controller.injectEvent(.le(.advertisingReport(LEAdvertisingReportEvent(reports: [
                LEAdvertisingReport(eventType: type, address: address, data: data, rssi: rssi)]))))
        }
        let advertisement: [UInt8] = [0x02, 0x01, 0x06, 0x03, 0x03, 0x1A, 0x18]
        let response: [UInt8] = [0x03, 0x09, 0x41, 0x42]
        inject(.advInd, peer, advertisement)
        inject(.advInd, peer, advertisement, rssi: -45)        // same data: filtered
        inject(.scanResponse, peer, response)                  // new: reported, merged
        inject(.scanResponse, peer, response)                  // filtered
        inject(.advInd, peer, advertisement)                   // filtered (nothing changed)
        inject(.advInd, peer, [0x02, 0x01, 0x04], rssi: 127)   // changed: reported, RSSI unavailable
        inject(.advNonconnInd, marker, [])
        await fixture.log.wait(for: 1, where: CentralLog.report(from: marker))
        let reports = CentralLog.reports(fixture.log, from: peer)
        #expect(reports.map(\.isScanResponse) == [false, true, false])
        #expect(reports[1].advertisement.localName == "AB")
        #expect(reports[1].advertisement.serviceUUIDs == [BluetoothUUID(0x181A)])
        #expect(reports[2].advertisingData == [0x02, 0x01, 0x04])
        #expect(reports[2].scanResponseData == response)
        #expect(reports[2].rssi == nil)
        #expect(CentralLog.reports(fixture.log, from: marker).first?.kind == .nonConnectable)
        await fixture.shutdown()
    }

    @Test func malformedReportsNeverTrap() async throws {
        let fixture = try await CentralFixture()
        try await fixture.central.startScanning(ScanParameters(active: true))
        let controller = fixture.centralStation.controller
        let peer = DeviceAddress(BluetoothAddress("D0:00:00:00:00:03")!, type: .publicDevice)
        // LE Advertising Report whose data length runs past the event, and one with an unknown event type.
        controller.injectRawPacket(HCIPacket(type: .event, body: [0x3E, 0x0C, 0x02, 0x01, 0x00, 0x00, 1, 2, 3, 4, 5, 6, 0x1F, 0x02]))
        controller.injectRawPacket(HCIPacket(type: .event, body: [0x3E, 0x0C, 0x02, 0x01, 0x09, 0x00, 1, 2, 3, 4, 5, 6, 0x00, 0xC0]))
        // A well-formed report carrying malformed advertising data: decoded up to the bad structure.
        controller.injectEvent(.le(.advertisingReport(LEAdvertisingReportEvent(reports: [
            LEAdvertisingReport(eventType: .advInd, address: peer, data: [0x02, 0x01, 0x06, 0x09, 0x09, 0x41], rssi: -60)]))))
        await fixture.log.wait(for: 1, where: CentralLog.report(from: peer))
        let report = try #require(CentralLog.reports(fixture.log, from: peer).first)
        #expect(report.advertisement.flags == 0x06)
        #expect(report.advertisement.malformation != nil)
        await fixture.shutdown()
    }

    @Test func invalidScanParametersAreRefused() async throws {
        let fixture = try await CentralFixture()
        await #expect(throws: GAPError.self) {
            try await fixture.central.startScanning(ScanParameters(interval: .milliseconds(10), window: .milliseconds(20)))
        }
        await #expect(throws: GAPError.self) {
            try await fixture.central.startScanning(ScanParameters(interval: .seconds(11), window: .milliseconds(20)))
        }
        #expect(await !fixture.central.isScanning)
        #expect(!fixture.centralStation.controller.isScanningOnRadio)
        await fixture.shutdown()
    }

    @Test func scanningIsReappliedAfterAControllerReset() async throws {
        let fixture = try await CentralFixture()
        try await fixture.central.startScanning(ScanParameters(active: true))
        #expect(fixture.centralStation.controller.isScanningOnRadio)
        fixture.centralStation.controller.injectHardwareError(code: 0x11)
        await fixture.log.wait(for: 1, where: CentralLog.recovered)
        try await fixture.advertise()
        // Reports again after recovery: scanning was re-applied.
        await fixture.log.wait(for: 1, where: CentralLog.report(from: fixture.peripheralIdentity))
        #expect(fixture.centralStation.controller.isScanningOnRadio)
        await fixture.shutdown()
    }
}
