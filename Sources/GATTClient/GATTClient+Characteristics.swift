import ATT
import BLECore
import GATT

// Characteristic and descriptor discovery (Core Vol 3 Part G 4.6, 4.7).
extension GATTClient {
    /// Discover All Characteristics of a Service (4.6.1), optionally keeping only `uuids`. All
    /// declarations are read either way: a characteristic ends where the next one starts.
    public func discoverCharacteristics(_ uuids: [BluetoothUUID]? = nil,
                                        of service: RemoteService) async throws(GATTClientError) -> [RemoteCharacteristic] {
        let all = try await procedure { () async throws(GATTClientError) -> [RemoteCharacteristic] in
            try await allCharacteristics(of: service)
        }
        guard let uuids else { return all }
        let wanted = Set(uuids)
        return all.filter { wanted.contains($0.uuid) }
    }

    private func allCharacteristics(of service: RemoteService) async throws(GATTClientError) -> [RemoteCharacteristic] {
        var found: [RemoteCharacteristic] = []
        var start = Int(service.handles.lowerBound)
        let end = service.handles.upperBound
        while start <= Int(end) {
            let request = ATTPDU.readByTypeRequest(startHandle: UInt16(start), endHandle: end, attributeType: GATTUUID.characteristic)
            guard let response = try await transactUntilNotFound(request) else { break }
            guard case let .readByTypeResponse(list) = response else { throw unexpected(response, .readByTypeResponse) }
            var next = start
            for entry in list.entries {
                found.append(try declaration(entry, notBefore: next, in: service))
                next = Int(entry.handle) + 1
            }
            guard next > start else { throw .malformedResponse("Read By Type Response did not advance past \(UInt16(start).hexLiteral)") }
            start = next
        }
        // A characteristic's descriptors run up to the next declaration, or the end of the service.
        for index in found.indices {
            if index + 1 < found.count, found[index + 1].declarationHandle <= found[index].valueHandle {
                throw .malformedResponse("declaration at \(found[index + 1].declarationHandle.hexLiteral) overlaps the value at \(found[index].valueHandle.hexLiteral)")
            }
            found[index].endHandle = index + 1 < found.count ? found[index + 1].declarationHandle - 1 : end
        }
        state.withLock { state in
            state.cache.characteristics[service.handles.lowerBound] = found
            if service.uuid == GATTUUID.genericAttributeService,
               let serviceChanged = found.first(where: { $0.uuid == GATTUUID.serviceChanged }) {
                state.serviceChangedHandle = serviceChanged.valueHandle
            }
        }
        return found
    }

    /// A characteristic declaration value: properties (1), value handle (2), UUID (2 or 16) (3.3.1).
    private func declaration(_ entry: ATTHandleValue, notBefore next: Int,
                             in service: RemoteService) throws(GATTClientError) -> RemoteCharacteristic {
        guard Int(entry.handle) >= next, entry.handle <= service.handles.upperBound else {
            throw .malformedResponse("declaration at \(entry.handle.hexLiteral) is outside \(UInt16(clamping: next).hexLiteral)…\(service.handles.upperBound.hexLiteral)")
        }
        let value = entry.value
        guard value.count == 5 || value.count == 19, let uuid = BluetoothUUID(littleEndian: Array(value[3...])) else {
            throw .malformedResponse("declaration at \(entry.handle.hexLiteral) has \(value.count) octets; it must be 5 or 19")
        }
        let valueHandle = UInt16(value[1]) | UInt16(value[2]) << 8
        guard valueHandle > entry.handle, valueHandle <= service.handles.upperBound else {
            throw .malformedResponse("declaration at \(entry.handle.hexLiteral) names value handle \(valueHandle.hexLiteral) outside its service")
        }
        return RemoteCharacteristic(uuid: uuid, declarationHandle: entry.handle, valueHandle: valueHandle,
                                    properties: CharacteristicProperties(rawValue: value[0]),
                                    endHandle: service.handles.upperBound, service: service)
    }

    /// Discover All Characteristic Descriptors (4.7.1): Find Information after the value handle.
    public func discoverDescriptors(of characteristic: RemoteCharacteristic) async throws(GATTClientError) -> [RemoteDescriptor] {
        try await procedure { () async throws(GATTClientError) -> [RemoteDescriptor] in
            try await descriptors(of: characteristic)
        }
    }

    /// The descriptors, without taking the bearer (the caller holds it).
    func descriptors(of characteristic: RemoteCharacteristic) async throws(GATTClientError) -> [RemoteDescriptor] {
        var found: [RemoteDescriptor] = []
        let end = characteristic.endHandle
        var start = Int(characteristic.valueHandle) + 1
        while start <= Int(end) {
            let request = ATTPDU.findInformationRequest(startHandle: UInt16(start), endHandle: end)
            guard let response = try await transactUntilNotFound(request) else { break }
            guard case let .findInformationResponse(data) = response else { throw unexpected(response, .findInformationResponse) }
            var next = start
            for entry in data.entries {
                guard Int(entry.handle) >= next, entry.handle <= end else {
                    throw .malformedResponse("descriptor at \(entry.handle.hexLiteral) is outside \(UInt16(clamping: next).hexLiteral)…\(end.hexLiteral)")
                }
                found.append(RemoteDescriptor(uuid: entry.uuid, handle: entry.handle))
                next = Int(entry.handle) + 1
            }
            guard next > start else { throw .malformedResponse("Find Information Response did not advance past \(UInt16(start).hexLiteral)") }
            start = next
        }
        state.withLock { $0.cache.descriptors[characteristic.valueHandle] = (characteristic.handles, found) }
        return found
    }
}
