import BLECore

/// What a peripheral wants to advertise, before it is placed into packets.
public struct AdvertisingContent: Sendable, Equatable {
    public var localName: String?
    /// In priority order: earlier UUIDs are the last to be left out.
    public var serviceUUIDs: [BluetoothUUID]
    public var appearance: UInt16?
    public var txPowerLevel: Int8?
    public var serviceData: [ServiceData]
    public var manufacturerData: ManufacturerData?
    public var flags: UInt8
    /// Service data is the point of the advertisement (a BTHome broadcast): it goes right after the
    /// flags, because passive scanners never ask for the scan response; the UUIDs and the name follow
    /// where room remains, else move to the scan response.
    public var serviceDataFirst: Bool = false

    public struct ServiceData: Sendable, Equatable {
        public var uuid: BluetoothUUID
        public var data: [UInt8]
        public init(uuid: BluetoothUUID, data: [UInt8]) {
            self.uuid = uuid
            self.data = data
        }
    }

    public struct ManufacturerData: Sendable, Equatable {
        public var companyIdentifier: UInt16
        public var data: [UInt8]
        public init(companyIdentifier: UInt16, data: [UInt8]) {
            self.companyIdentifier = companyIdentifier
            self.data = data
        }
    }

    public init(localName: String? = nil, serviceUUIDs: [BluetoothUUID] = [], appearance: UInt16? = nil,
                txPowerLevel: Int8? = nil, serviceData: [ServiceData] = [], manufacturerData: ManufacturerData? = nil,
                flags: UInt8 = ADFlags.leGeneralDiscoverable | ADFlags.brEdrNotSupported) {
        self.localName = localName
        self.serviceUUIDs = serviceUUIDs
        self.appearance = appearance
        self.txPowerLevel = txPowerLevel
        self.serviceData = serviceData
        self.manufacturerData = manufacturerData
        self.flags = flags
    }
}

/// Where each item ended up.
public struct AdvertisingPlan: Sendable, Equatable {
    public var advertisingData: [UInt8]
    public var scanResponseData: [UInt8]
    /// Service UUIDs that fit in neither packet; reported, never silently dropped.
    public var omittedServiceUUIDs: [BluetoothUUID]
    /// True when only a shortened local name could be advertised.
    public var nameShortened: Bool
}
