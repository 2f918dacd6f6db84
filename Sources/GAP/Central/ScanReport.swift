import BLECore
import HCI

/// One discovery, as the central reports it.
public struct ScanReport: Sendable, Equatable {
    /// What the peer's advertising allows (from the PDU type of its last advertisement).
    public enum Kind: Sendable, Equatable {
        /// ADV_IND: connectable and scannable.
        case connectableUndirected
        /// ADV_DIRECT_IND: connectable by us only; carries no data.
        case connectableDirected
        /// ADV_SCAN_IND: scannable, not connectable.
        case scannableUndirected
        /// ADV_NONCONN_IND.
        case nonConnectable

        init(_ type: LEAdvertisingReport.EventType) {
            switch type {
            case .advInd: self = .connectableUndirected
            case .advDirectInd: self = .connectableDirected
            // A scan response only follows scannable advertising; without its advertisement it is the safe guess.
            case .advScanInd, .scanResponse: self = .scannableUndirected
            case .advNonconnInd: self = .nonConnectable
            }
        }

        public var isConnectable: Bool { self == .connectableUndirected || self == .connectableDirected }
    }

    public var peer: DeviceAddress
    /// dBm; `nil` when the controller could not measure it (127).
    public var rssi: Int8?
    public var kind: Kind
    /// The last advertising data heard from the peer (empty when only a scan response was heard).
    public var advertisingData: [UInt8]
    /// The last scan response heard from the peer, if any (only active scanning gets one).
    public var scanResponseData: [UInt8]?
    /// Advertising data and scan response decoded and merged (see `AdvertisementData.merging`).
    public var advertisement: AdvertisementData
    /// True when this report was triggered by a scan response rather than an advertisement.
    public var isScanResponse: Bool

    public init(peer: DeviceAddress, rssi: Int8?, kind: Kind, advertisingData: [UInt8], scanResponseData: [UInt8]?,
                advertisement: AdvertisementData, isScanResponse: Bool) {
        self.peer = peer
        self.rssi = rssi
        self.kind = kind
        self.advertisingData = advertisingData
        self.scanResponseData = scanResponseData
        self.advertisement = advertisement
        self.isScanResponse = isScanResponse
    }
}
