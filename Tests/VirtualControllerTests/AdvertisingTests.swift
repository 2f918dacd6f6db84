import BLECore
import HCI
import Testing
@testable import VirtualController

@Suite struct AdvertisingTests {
    let radio = VirtualRadio()
    static let data: [UInt8] = [0x02, 0x01, 0x06, 0x05, 0x09, 0x54, 0x65, 0x73, 0x74]
    static let scanResponse: [UInt8] = [0x03, 0x19, 0x40, 0x02]

    private func reports(_ host: TestHost, _ what: String, where match: @escaping @Sendable (LEAdvertisingReport) -> Bool) async throws -> LEAdvertisingReport {
        let event = try await host.event(what) { $0.advertisingReports?.contains(where: match) ?? false }
        return try #require(event.advertisingReports?.first(where: match))
    }

    @Test func activeScannerGetsAdvertisementAndScanResponse() async throws {
        let advertiser = try await TestHost(radio, address: "00:00:00:00:00:A1")
        let scanner = try await TestHost(radio, address: "00:00:00:00:00:B1")
        try await advertiser.initialize()
        try await scanner.initialize()
        let random = BluetoothAddress("C1:02:03:04:05:06")!
        try await advertiser.advertise(data: Self.data, scanResponse: Self.scanResponse, interval: 0x4000, ownRandom: random)
        try await scanner.scan(active: true)
        let adv = try await reports(scanner, "ADV_IND") { $0.eventType == .advInd }
        #expect(adv.address == DeviceAddress(random, type: .randomDevice))
        #expect(adv.data == Self.data && adv.rssi == -50)
        let rsp = try await reports(scanner, "SCAN_RSP") { $0.eventType == .scanResponse }
        #expect(rsp.data == Self.scanResponse && rsp.address == adv.address)
        // New data is reported at once, long before the 10 s interval.
        let newData: [UInt8] = [0x02, 0x01, 0x04]
        #expect(try await advertiser.run(HCILESetAdvertisingData(payload: LELegacyAdvertisingPayload(newData)!)).status == .success)
        let changed = try await reports(scanner, "changed data") { $0.eventType == .advInd && $0.data == newData }
        #expect(changed.address == adv.address)
    }

    @Test func passiveScanOfNonConnectableGetsNoScanResponse() async throws {
        let advertiser = try await TestHost(radio, address: "00:00:00:00:00:A2")
        let scanner = try await TestHost(radio, address: "00:00:00:00:00:B2")
        try await advertiser.initialize()
        try await scanner.initialize()
        try await advertiser.advertise(type: .scannableUndirected, data: Self.data, scanResponse: Self.scanResponse, interval: 0x4000)
        try await scanner.scan(active: false)
        let adv = try await reports(scanner, "ADV_SCAN_IND") { $0.eventType == .advScanInd }
        #expect(adv.address == advertiser.publicAddress)
        try await scanner.sync()
        #expect(!scanner.inbox.pending.contains { $0.event?.advertisingReports?.contains { $0.eventType == .scanResponse } ?? false })
    }

    @Test func reportsRepeatAtTheIntervalUnlessDuplicatesAreFiltered() async throws {
        let advertiser = try await TestHost(radio, address: "00:00:00:00:00:A3")
        let scanner = try await TestHost(radio, address: "00:00:00:00:00:B3")
        let filtering = try await TestHost(radio, address: "00:00:00:00:00:C3")
        try await advertiser.initialize()
        try await scanner.initialize()
        try await filtering.initialize()
        try await advertiser.advertise(type: .nonConnectableUndirected, data: Self.data, interval: 0x0020)
        try await scanner.scan(active: false)
        try await filtering.scan(active: true, filterDuplicates: true)
        for round in 0..<4 {
            _ = try await reports(scanner, "report \(round)") { $0.eventType == .advNonconnInd }
        }
        // Four reports took at least three 20 ms intervals; the filtering scanner heard just one.
        try await filtering.sync()
        let heard = filtering.inbox.pending.filter { $0.event?.advertisingReports != nil }
        #expect(heard.count == 1)
    }

    @Test func leMetaBitOrReportBitUnsetSuppressesReports() async throws {
        let advertiser = try await TestHost(radio, address: "00:00:00:00:00:A4")
        let noMeta = try await TestHost(radio, address: "00:00:00:00:00:B4")
        let noReports = try await TestHost(radio, address: "00:00:00:00:00:C4")
        let control = try await TestHost(radio, address: "00:00:00:00:00:D4")
        try await advertiser.initialize()
        try await noMeta.initialize()
        try await control.initialize()
        #expect(try await noMeta.run(HCISetEventMask(mask: HCISetEventMask.leHostDefault.mask & ~HCISetEventMask.leMeta)).status == .success)
        try await noReports.initialize(leMask: HCILESetEventMask.hostDefault.mask & ~HCILESetEventMask.advertisingReport)
        try await noMeta.scan(active: true)
        try await noReports.scan(active: true)
        try await control.scan(active: true)
        try await advertiser.advertise(data: Self.data, interval: 0x0020)
        // A scanner with the default masks heard two advertising events, so the others had them too.
        for round in 0..<2 { _ = try await reports(control, "control report \(round)") { $0.eventType == .advInd } }
        try await noMeta.sync()
        try await noReports.sync()
        #expect(!noMeta.inbox.pending.contains { $0.event?.isLE ?? false })
        #expect(!noReports.inbox.pending.contains { $0.event?.isLE ?? false })
        // Enabling the bit makes reports flow.
        #expect(try await noMeta.run(HCISetEventMask.leHostDefault).status == .success)
        _ = try await reports(noMeta, "report after unmasking") { $0.eventType == .advInd }
    }

    @Test func hardwareErrorHonoursTheMask() async throws {
        let host = try await TestHost(radio, address: "00:00:00:00:00:A5")
        try await host.initialize()
        host.controller.injectHardwareError(code: 0x42)
        #expect(try await host.event("Hardware Error") { $0 == .hardwareError(code: 0x42) } == .hardwareError(code: 0x42))
        #expect(try await host.run(HCISetEventMask(mask: 0)).status == .success)
        host.controller.injectHardwareError(code: 0x43)
        try await host.sync()
        #expect(!host.inbox.pending.contains { $0.event == .hardwareError(code: 0x43) })
        // Injected events bypass the mask, for malformed-input tests.
        host.controller.injectRawPacket(HCIPacket(type: .event, body: [0x3E, 0x01]))
        let raw = await host.inbox.next(timeout: TestHost.timeout) { if case .packet = $0 { return true }; return false }
        #expect(raw.flatMap { if case let .packet(p) = $0 { return p.h4Bytes }; return nil } == [UInt8]([0x04, 0x3E, 0x01]))
    }

    @Test func virtualCentralScansAdvertisersAndScanResponses() async throws {
        let connectable = try await TestHost(radio, address: "00:00:00:00:00:A6")
        let beacon = try await TestHost(radio, address: "00:00:00:00:00:A7")
        try await connectable.initialize()
        try await beacon.initialize()
        try await connectable.advertise(data: Self.data, scanResponse: Self.scanResponse)
        try await beacon.advertise(type: .nonConnectableUndirected, data: [0x02, 0x01, 0x04])
        let central = radio.makeCentral(address: DeviceAddress(BluetoothAddress("C0:00:00:00:00:CC")!, type: .randomDevice))
        let results = await central.scan(for: .milliseconds(50), active: true)
        let first = try #require(results.first { $0.address == connectable.publicAddress })
        #expect(first.advertisingData == Self.data && first.scanResponseData == Self.scanResponse && first.connectable)
        let second = try #require(results.first { $0.address == beacon.publicAddress })
        #expect(!second.connectable && second.scanResponseData == nil)
        let passive = await central.scan(for: .milliseconds(20), active: false)
        #expect(passive.first { $0.address == connectable.publicAddress }?.scanResponseData == nil)
    }
}
