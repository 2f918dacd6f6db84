import BLECore
import HCI

/// Places advertising content into the 31-byte advertising data and scan response following the
/// rules users know from CoreBluetooth:
/// 1. Flags first, then the service UUIDs, grouped by size (16-, 32-, 128-bit), in the given order.
///    A group that does not fit whole becomes an "incomplete list" of what fits; the rest overflow.
/// 2. The complete local name in the advertising data when it fits after the UUIDs; otherwise in the
///    scan response; otherwise a shortened name filling the scan response.
/// 3. Appearance, TX power, service data and manufacturer data where they fit, advertising data first.
/// 4. Overflowing UUIDs go to the scan response as incomplete lists; what fits nowhere is reported.
/// With `serviceDataFirst`, the service data comes right after the flags, before rule 1's UUIDs,
/// and the UUIDs that overflow take the scan response before the name does (rule 2 then applies to
/// what room is left).
public enum AdvertisingPlanner {
    public static let packetLength = LELegacyAdvertisingPayload.maximumLength

    public static func plan(_ content: AdvertisingContent) throws(AdvertisingDataError) -> AdvertisingPlan {
        var advertising = Packet()
        var scanResponse = Packet()
        if content.flags != 0 {
            advertising.add(ADStructure(type: ADType.flags, data: [content.flags]))
        }
        if content.serviceDataFirst {
            for (label, structure) in serviceDataStructures(content) {
                try place(label, structure, &advertising, &scanResponse)
            }
        }

        var overflow: [(size: Int, uuids: [BluetoothUUID])] = []
        var omitted: [BluetoothUUID] = []
        for group in uuidGroups(content.serviceUUIDs) {
            let placed = advertising.addUUIDList(group.uuids, size: group.size, everythingFits: true)
            guard placed < group.uuids.count else { continue }
            let rest = Array(group.uuids[placed...])
            if content.serviceDataFirst {
                // The broadcast filled the advertising packet: the UUIDs phones filter on come
                // first in the scan response, ahead of the name, which is shortened to make room.
                let inResponse = scanResponse.addUUIDList(rest, size: group.size, everythingFits: placed == 0)
                omitted.append(contentsOf: rest[inResponse...])
            } else {
                overflow.append((group.size, rest))
            }
        }

        var nameShortened = false
        if let name = content.localName, !name.isEmpty {
            let bytes = Array(name.utf8)
            let complete = ADStructure(type: ADType.completeLocalName, data: bytes)
            if !advertising.tryAdd(complete), !scanResponse.tryAdd(complete) {
                let shortened = truncateUTF8(name, toBytes: scanResponse.room - 2)
                if !shortened.isEmpty {
                    scanResponse.add(ADStructure(type: ADType.shortenedLocalName, data: shortened))
                    nameShortened = true
                }
            }
        }

        for (label, structure) in extraStructures(content, includingServiceData: !content.serviceDataFirst) {
            try place(label, structure, &advertising, &scanResponse)
        }

        for group in overflow {
            let placed = scanResponse.addUUIDList(group.uuids, size: group.size, everythingFits: false)
            omitted.append(contentsOf: group.uuids[placed...])
        }

        return AdvertisingPlan(advertisingData: advertising.bytes, scanResponseData: scanResponse.bytes,
                               omittedServiceUUIDs: omitted, nameShortened: nameShortened)
    }

    private static func place(_ label: String, _ structure: ADStructure, _ advertising: inout Packet,
                              _ scanResponse: inout Packet) throws(AdvertisingDataError) {
        guard structure.encodedLength <= packetLength else {
            throw .doesNotFit(item: label, bytes: structure.encodedLength)
        }
        if !advertising.tryAdd(structure), !scanResponse.tryAdd(structure) {
            throw .noRoomLeft(item: label, bytes: structure.encodedLength)
        }
    }

    struct Packet {
        var bytes: [UInt8] = []
        var room: Int { AdvertisingPlanner.packetLength - bytes.count }

        mutating func add(_ structure: ADStructure) { structure.encode(into: &bytes) }

        mutating func tryAdd(_ structure: ADStructure) -> Bool {
            guard structure.encodedLength <= room else { return false }
            add(structure)
            return true
        }

        /// Adds as many UUIDs as fit; returns how many. The list is "complete" only when it holds
        /// the whole set of this size.
        mutating func addUUIDList(_ uuids: [BluetoothUUID], size: Int, everythingFits: Bool) -> Int {
            let fitting = min(uuids.count, max(0, (room - 2) / size))
            guard fitting > 0 else { return 0 }
            let complete = everythingFits && fitting == uuids.count
            var data: [UInt8] = []
            for uuid in uuids.prefix(fitting) { data.append(contentsOf: AdvertisingPlanner.wireForm(uuid, size: size)) }
            add(ADStructure(type: AdvertisingPlanner.listType(size: size, complete: complete), data: data))
            return fitting
        }
    }

    static func uuidGroups(_ uuids: [BluetoothUUID]) -> [(size: Int, uuids: [BluetoothUUID])] {
        var seen = Set<BluetoothUUID>()
        let unique = uuids.filter { seen.insert($0).inserted }
        let sixteen = unique.filter { $0.uint16 != nil }
        let thirtyTwo = unique.filter { $0.uint16 == nil && $0.uint32 != nil }
        let long = unique.filter { $0.uint32 == nil }
        return [(2, sixteen), (4, thirtyTwo), (16, long)].filter { !$0.1.isEmpty }
    }

    static func wireForm(_ uuid: BluetoothUUID, size: Int) -> [UInt8] {
        switch size {
        case 2: return uuid.shortestLittleEndian
        case 4: return uuid.littleEndian32 ?? uuid.littleEndian128
        default: return uuid.littleEndian128
        }
    }

    static func listType(size: Int, complete: Bool) -> UInt8 {
        switch size {
        case 2: return complete ? ADType.completeList16 : ADType.incompleteList16
        case 4: return complete ? ADType.completeList32 : ADType.incompleteList32
        default: return complete ? ADType.completeList128 : ADType.incompleteList128
        }
    }

    static func extraStructures(_ content: AdvertisingContent, includingServiceData: Bool = true) -> [(String, ADStructure)] {
        var extras: [(String, ADStructure)] = []
        if let appearance = content.appearance {
            extras.append(("appearance", ADStructure(type: ADType.appearance, data: [UInt8(appearance & 0xFF), UInt8(appearance >> 8)])))
        }
        if let power = content.txPowerLevel {
            extras.append(("TX power level", ADStructure(type: ADType.txPowerLevel, data: [UInt8(bitPattern: power)])))
        }
        if includingServiceData { extras += serviceDataStructures(content) }
        if let manufacturer = content.manufacturerData {
            let company = [UInt8(manufacturer.companyIdentifier & 0xFF), UInt8(manufacturer.companyIdentifier >> 8)]
            extras.append(("manufacturer data", ADStructure(type: ADType.manufacturerSpecificData, data: company + manufacturer.data)))
        }
        return extras
    }

    static func serviceDataStructures(_ content: AdvertisingContent) -> [(String, ADStructure)] {
        var extras: [(String, ADStructure)] = []
        for item in content.serviceData {
            let type: UInt8
            let uuidBytes: [UInt8]
            if item.uuid.uint16 != nil {
                (type, uuidBytes) = (ADType.serviceData16, item.uuid.shortestLittleEndian)
            } else if let bytes32 = item.uuid.littleEndian32 {
                (type, uuidBytes) = (ADType.serviceData32, bytes32)
            } else {
                (type, uuidBytes) = (ADType.serviceData128, item.uuid.littleEndian128)
            }
            extras.append(("service data for \(item.uuid)", ADStructure(type: type, data: uuidBytes + item.data)))
        }
        return extras
    }

    /// The longest prefix of `text` whose UTF-8 form fits `limit` bytes without splitting a character.
    static func truncateUTF8(_ text: String, toBytes limit: Int) -> [UInt8] {
        guard limit > 0 else { return [] }
        var result: [UInt8] = []
        for character in text {
            let bytes = Array(String(character).utf8)
            guard result.count + bytes.count <= limit else { break }
            result.append(contentsOf: bytes)
        }
        return result
    }
}
