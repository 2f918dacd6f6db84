import BLECore

/// Advertising data (or a scan response, or both merged) as a central reads it (Core Specification
/// Supplement Part A 1).
///
/// Decoding is total and best effort: structures are taken up to the first whose length runs past
/// the end (that error is kept in `malformation`, the structures before it are decoded), and a
/// field whose value has the wrong size (an odd 16-bit UUID list, a one-byte appearance…) is left
/// out of the typed fields while staying in `structures`. `init(parsing:)` is the strict form that
/// throws instead.
public struct AdvertisementData: Sendable, Equatable {
    public struct ManufacturerData: Sendable, Equatable {
        public var companyIdentifier: UInt16
        public var data: [UInt8]
        public init(companyIdentifier: UInt16, data: [UInt8]) {
            self.companyIdentifier = companyIdentifier
            self.data = data
        }
    }

    public var localName: String?
    /// False when `localName` is the Shortened Local Name.
    public var isLocalNameComplete = false
    /// Complete and incomplete lists of every size, in order, without repeats.
    public var serviceUUIDs: [BluetoothUUID] = []
    public var solicitedServiceUUIDs: [BluetoothUUID] = []
    public var serviceData: [BluetoothUUID: [UInt8]] = [:]
    /// Several structures may each carry one.
    public var manufacturerData: [ManufacturerData] = []
    public var txPowerLevel: Int8?
    public var flags: UInt8?
    public var appearance: UInt16?
    /// Every well-formed structure, decoded or not, in order.
    public var structures: [ADStructure] = []
    /// Why decoding stopped before the end of the bytes, if it did.
    public var malformation: AdvertisingDataError?

    public init() {}

    /// Best-effort decoding; never fails (see the type's documentation).
    public init(decoding bytes: [UInt8]) {
        let (structures, error) = ADStructure.parsePrefix(bytes)
        self.init(structures: structures)
        malformation = error
    }

    /// Strict decoding: throws when a structure's length runs past the end.
    public init(parsing bytes: [UInt8]) throws(AdvertisingDataError) {
        self.init(structures: try ADStructure.parse(bytes))
    }

    public init(structures: [ADStructure]) {
        for structure in structures { apply(structure) }
        self.structures = structures
    }

    /// The advertising data with a scan response's fields added: what the advertising data says
    /// wins, except that a complete local name replaces a shortened one; lists are joined.
    public func merging(scanResponse: AdvertisementData) -> AdvertisementData {
        var merged = self
        if let name = scanResponse.localName, localName == nil || (!isLocalNameComplete && scanResponse.isLocalNameComplete) {
            merged.localName = name
            merged.isLocalNameComplete = scanResponse.isLocalNameComplete
        }
        merged.serviceUUIDs = Self.joined(serviceUUIDs, scanResponse.serviceUUIDs)
        merged.solicitedServiceUUIDs = Self.joined(solicitedServiceUUIDs, scanResponse.solicitedServiceUUIDs)
        merged.serviceData.merge(scanResponse.serviceData) { ours, _ in ours }
        merged.manufacturerData += scanResponse.manufacturerData
        merged.txPowerLevel = txPowerLevel ?? scanResponse.txPowerLevel
        merged.flags = flags ?? scanResponse.flags
        merged.appearance = appearance ?? scanResponse.appearance
        merged.structures += scanResponse.structures
        merged.malformation = malformation ?? scanResponse.malformation
        return merged
    }

    // MARK: Fields

    private mutating func apply(_ structure: ADStructure) {
        let data = structure.data
        switch structure.type {
        case ADType.flags:
            if let first = data.first { flags = first }
        case ADType.incompleteList16, ADType.completeList16:
            serviceUUIDs = Self.joined(serviceUUIDs, Self.uuids(data, size: 2))
        case ADType.incompleteList32, ADType.completeList32:
            serviceUUIDs = Self.joined(serviceUUIDs, Self.uuids(data, size: 4))
        case ADType.incompleteList128, ADType.completeList128:
            serviceUUIDs = Self.joined(serviceUUIDs, Self.uuids(data, size: 16))
        case ADType.solicitedList16:
            solicitedServiceUUIDs = Self.joined(solicitedServiceUUIDs, Self.uuids(data, size: 2))
        case ADType.solicitedList32:
            solicitedServiceUUIDs = Self.joined(solicitedServiceUUIDs, Self.uuids(data, size: 4))
        case ADType.solicitedList128:
            solicitedServiceUUIDs = Self.joined(solicitedServiceUUIDs, Self.uuids(data, size: 16))
        case ADType.shortenedLocalName:
            // A complete name seen earlier is the better one.
            if !isLocalNameComplete { localName = String(decoding: data, as: UTF8.self) }
        case ADType.completeLocalName:
            localName = String(decoding: data, as: UTF8.self)
            isLocalNameComplete = true
        case ADType.txPowerLevel:
            if data.count == 1 { txPowerLevel = Int8(bitPattern: data[0]) }
        case ADType.appearance:
            if data.count == 2 { appearance = UInt16(data[0]) | UInt16(data[1]) << 8 }
        case ADType.serviceData16: addServiceData(data, uuidSize: 2)
        case ADType.serviceData32: addServiceData(data, uuidSize: 4)
        case ADType.serviceData128: addServiceData(data, uuidSize: 16)
        case ADType.manufacturerSpecificData:
            if data.count >= 2 {
                manufacturerData.append(ManufacturerData(companyIdentifier: UInt16(data[0]) | UInt16(data[1]) << 8,
                                                         data: Array(data[2...])))
            }
        default:
            break
        }
    }

    private mutating func addServiceData(_ data: [UInt8], uuidSize: Int) {
        guard data.count >= uuidSize, let uuid = BluetoothUUID(littleEndian: Array(data[..<uuidSize])) else { return }
        serviceData[uuid] = Array(data[uuidSize...])
    }

    /// Whole UUIDs of `size` bytes; a trailing partial one is ignored.
    private static func uuids(_ data: [UInt8], size: Int) -> [BluetoothUUID] {
        stride(from: 0, to: data.count - data.count % size, by: size).compactMap {
            BluetoothUUID(littleEndian: Array(data[$0..<($0 + size)]))
        }
    }

    private static func joined(_ first: [BluetoothUUID], _ second: [BluetoothUUID]) -> [BluetoothUUID] {
        var result = first
        for uuid in second where !result.contains(uuid) { result.append(uuid) }
        return result
    }
}
