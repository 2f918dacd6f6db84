import ATT
import BLECore
import GATT

// Find Information, Find By Type Value, Read By Type, Read By Group Type (Core Vol 3 Part F 3.4.3, 3.4.4).
extension GATTServer {
    func findInformation(start: UInt16, end: UInt16, context: ConnectionContext) throws(RequestError) -> ATTPDU {
        try checkRange(start: start, end: end)
        let entries = context.database.attributes(in: start...end).map { ATTHandleUUID(handle: $0.handle, uuid: $0.type) }
        guard let response = ATTPDU.findInformationResponse(fitting: entries, mtu: currentMTU(context)) else {
            throw RequestError(start, .attributeNotFound)
        }
        return response
    }

    /// Only values the server holds itself are compared, and only where a read would be allowed
    /// without security; a value that must come from the application is never matched (discovery
    /// by value is for declarations, Core Vol 3 Part G 4.4.2).
    func findByTypeValue(start: UInt16, end: UInt16, type: UInt16, value: [UInt8],
                         context: ConnectionContext) throws(RequestError) -> ATTPDU {
        try checkRange(start: start, end: end)
        let attributeType = BluetoothUUID(type)
        let isGrouping = attributeType == GATTUUID.primaryService || attributeType == GATTUUID.secondaryService
        var entries: [ATTHandlesInformation] = []
        for attribute in context.database.attributes(in: start...end) where attribute.type == attributeType {
            guard let known = attribute.value.knownBytes,
                  accessError(.read, attribute, context: context) == nil,
                  Self.matches(known, value, asUUID: isGrouping) else { continue }
            let groupEnd = isGrouping
                ? context.database.serviceGroup(containing: attribute.handle)?.endGroupHandle ?? attribute.handle
                : attribute.handle
            entries.append(ATTHandlesInformation(foundHandle: attribute.handle, groupEndHandle: groupEnd))
        }
        guard let response = ATTPDU.findByTypeValueResponse(fitting: entries, mtu: currentMTU(context)) else {
            throw RequestError(start, .attributeNotFound)
        }
        return response
    }

    /// Service UUIDs match in either width (a 16-bit UUID sent in its 128-bit form is the same service).
    private static func matches(_ stored: [UInt8], _ requested: [UInt8], asUUID: Bool) -> Bool {
        if stored == requested { return true }
        guard asUUID, let a = BluetoothUUID(littleEndian: stored), let b = BluetoothUUID(littleEndian: requested) else {
            return false
        }
        return a == b
    }

    /// Entries stop at the first attribute that cannot be read (it is answered alone with its error
    /// when it is the first, 3.4.4.1), at a length change, when the MTU is full, and before a second
    /// value that needs the application: one delegate round trip per request keeps the link's
    /// queue moving, and the client continues from the next handle.
    func readByType(start: UInt16, end: UInt16, type: BluetoothUUID,
                    context: ConnectionContext) async throws(RequestError) -> ATTPDU {
        try checkRange(start: start, end: end)
        let mtu = currentMTU(context)
        var entries: [ATTHandleValue] = []
        for attribute in context.database.attributes(in: start...end) where attribute.type == type {
            if let error = accessError(.read, attribute, context: context) {
                if entries.isEmpty { throw RequestError(attribute.handle, error) }
                break
            }
            if isApplicationValue(attribute) {
                if !entries.isEmpty { break }
                entries.append(ATTHandleValue(handle: attribute.handle, value: try await value(of: attribute, context: context)))
                break
            }
            entries.append(ATTHandleValue(handle: attribute.handle, value: try await value(of: attribute, context: context)))
            noteDatabaseHashRead(attribute, context: context)
            // Enough for a full response: the builder drops whatever does not fit.
            if entries.count * 2 >= mtu { break }
        }
        guard let response = ATTPDU.readByTypeResponse(fitting: entries, mtu: mtu) else {
            throw RequestError(start, .attributeNotFound)
        }
        return response
    }

    func readByGroupType(start: UInt16, end: UInt16, type: BluetoothUUID,
                         context: ConnectionContext) throws(RequestError) -> ATTPDU {
        try checkRange(start: start, end: end)
        let kind: GATTServiceKind
        switch type {
        case GATTUUID.primaryService: kind = .primary
        case GATTUUID.secondaryService: kind = .secondary
        default: throw RequestError(start, .unsupportedGroupType)
        }
        let entries = context.database.serviceGroups(type: kind)
            .filter { (start...end).contains($0.startHandle) }
            .map { ATTGroupData(handle: $0.startHandle, endGroupHandle: $0.endGroupHandle, value: $0.uuid.shortestLittleEndian) }
        guard let response = ATTPDU.readByGroupTypeResponse(fitting: entries, mtu: currentMTU(context)) else {
            throw RequestError(start, .attributeNotFound)
        }
        return response
    }
}
