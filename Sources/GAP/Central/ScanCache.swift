import BLECore
import HCI

/// What the central remembers per advertiser while scanning: the last advertisement and scan
/// response (so a SCAN_RSP is merged with the ADV it answers) and what was last reported (for
/// host-side duplicate filtering). Bounded: beyond `capacity` addresses the least recently heard
/// is forgotten (it is then reported again as new when heard).
struct ScanCache {
    struct Entry {
        var kind: ScanReport.Kind?
        var advertisingData: [UInt8] = []
        var scanResponseData: [UInt8]?
        var reported: Reported?
        var lastHeard: UInt64 = 0
    }

    struct Reported: Equatable {
        var kind: ScanReport.Kind
        var advertisingData: [UInt8]
        var scanResponseData: [UInt8]?
    }

    let capacity: Int
    private(set) var entries: [DeviceAddress: Entry] = [:]
    private var clock: UInt64 = 0

    init(capacity: Int) { self.capacity = max(1, capacity) }

    /// Takes one controller report; returns the report to deliver, or `nil` when duplicate
    /// filtering suppresses it.
    mutating func process(_ report: LEAdvertisingReport, filterDuplicates: Bool) -> ScanReport? {
        clock += 1
        var entry = entries[report.address] ?? Entry()
        if entries[report.address] == nil { makeRoom() }
        let isScanResponse = report.eventType == .scanResponse
        if isScanResponse {
            entry.scanResponseData = report.data
        } else {
            entry.kind = ScanReport.Kind(report.eventType)
            entry.advertisingData = report.data
        }
        entry.lastHeard = clock
        let kind = entry.kind ?? ScanReport.Kind(report.eventType)
        let now = Reported(kind: kind, advertisingData: entry.advertisingData, scanResponseData: entry.scanResponseData)
        let duplicate = filterDuplicates && entry.reported == now
        entry.reported = now
        entries[report.address] = entry
        guard !duplicate else { return nil }
        var advertisement = AdvertisementData(decoding: entry.advertisingData)
        if let scanResponse = entry.scanResponseData {
            advertisement = advertisement.merging(scanResponse: AdvertisementData(decoding: scanResponse))
        }
        return ScanReport(peer: report.address, rssi: report.rssi == 127 ? nil : report.rssi, kind: kind,
                          advertisingData: entry.advertisingData, scanResponseData: entry.scanResponseData,
                          advertisement: advertisement, isScanResponse: isScanResponse)
    }

    mutating func removeAll() { entries.removeAll() }

    private mutating func makeRoom() {
        guard entries.count >= capacity,
              let oldest = entries.min(by: { $0.value.lastHeard < $1.value.lastHeard })?.key else { return }
        entries.removeValue(forKey: oldest)
    }
}
