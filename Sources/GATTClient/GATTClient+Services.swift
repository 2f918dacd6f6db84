import ATT
import BLECore
import GATT

// MTU exchange and service discovery (Core Vol 3 Part G 4.3–4.5). Every answer must stay inside
// the requested range and move forward, so a broken server ends a procedure with
// `.malformedResponse` instead of looping.
extension GATTClient {
    /// Exchange MTU (4.3.1) with our configured Rx MTU; returns the ATT_MTU now in use and stores it
    /// on the link. The exchange happens once per link; later calls return the current MTU.
    @discardableResult
    public func exchangeMTU() async throws(GATTClientError) -> Int {
        try await procedure { () async throws(GATTClientError) -> Int in
            if state.withLock({ $0.mtuExchanged }) { return link.mtu }
            let rxMTU = UInt16(min(max(configuration.rxMTU, ATTConstants.defaultLEMTU), ATTConstants.maximumMTU))
            let response = try await transact(.exchangeMTURequest(clientRxMTU: rxMTU))
            guard case let .exchangeMTUResponse(serverRxMTU) = response else { throw unexpected(response, .exchangeMTUResponse) }
            let mtu = ATTConstants.negotiatedMTU(clientRxMTU: rxMTU, serverRxMTU: serverRxMTU)
            link.setMTU(mtu)
            state.withLock { $0.mtuExchanged = true }
            return mtu
        }
    }

    /// Discover All Primary Services (4.4.1, Read By Group Type), or with `uuids` Discover Primary
    /// Service by Service UUID (4.4.2, Find By Type Value per UUID). Sorted by handle.
    public func discoverPrimaryServices(_ uuids: [BluetoothUUID]? = nil) async throws(GATTClientError) -> [RemoteService] {
        try await procedure { () async throws(GATTClientError) -> [RemoteService] in
            var found: [RemoteService]
            if let uuids {
                found = []
                for uuid in Set(uuids) { found += try await primaryServices(withUUID: uuid) }
                found.sort { $0.handles.lowerBound < $1.handles.lowerBound }
            } else {
                found = try await allPrimaryServices()
            }
            state.withLock { state in
                for service in found where state.cache.services[service.handles.lowerBound]?.handles != service.handles {
                    state.cache.services[service.handles.lowerBound] = service
                }
            }
            return found
        }
    }

    private func allPrimaryServices() async throws(GATTClientError) -> [RemoteService] {
        var services: [RemoteService] = []
        var start = 0x0001
        while start <= 0xFFFF {
            let request = ATTPDU.readByGroupTypeRequest(startHandle: UInt16(start), endHandle: 0xFFFF, groupType: GATTUUID.primaryService)
            guard let response = try await transactUntilNotFound(request) else { break }
            guard case let .readByGroupTypeResponse(list) = response else { throw unexpected(response, .readByGroupTypeResponse) }
            var next = start
            for entry in list.entries {
                guard Int(entry.handle) >= next, entry.endGroupHandle >= entry.handle else {
                    throw .malformedResponse("service \(entry.handle.hexLiteral)…\(entry.endGroupHandle.hexLiteral) does not follow \(UInt16(clamping: next - 1).hexLiteral)")
                }
                guard entry.value.count == 2 || entry.value.count == 16, let uuid = BluetoothUUID(littleEndian: entry.value) else {
                    throw .malformedResponse("service UUID of \(entry.value.count) octets at \(entry.handle.hexLiteral); it must be 2 or 16")
                }
                services.append(RemoteService(uuid: uuid, handles: entry.handle...entry.endGroupHandle))
                next = Int(entry.endGroupHandle) + 1
            }
            guard next > start else { throw .malformedResponse("Read By Group Type Response did not advance past \(UInt16(start).hexLiteral)") }
            start = next
        }
        return services
    }

    private func primaryServices(withUUID uuid: BluetoothUUID) async throws(GATTClientError) -> [RemoteService] {
        var services: [RemoteService] = []
        var start = 0x0001
        while start <= 0xFFFF {
            let request = ATTPDU.findByTypeValueRequest(startHandle: UInt16(start), endHandle: 0xFFFF,
                                                        attributeType: 0x2800, value: uuid.shortestLittleEndian)
            guard let response = try await transactUntilNotFound(request) else { break }
            guard case let .findByTypeValueResponse(list) = response else { throw unexpected(response, .findByTypeValueResponse) }
            var next = start
            for entry in list {
                guard Int(entry.foundHandle) >= next, entry.groupEndHandle >= entry.foundHandle else {
                    throw .malformedResponse("service \(entry.foundHandle.hexLiteral)…\(entry.groupEndHandle.hexLiteral) does not follow \(UInt16(clamping: next - 1).hexLiteral)")
                }
                services.append(RemoteService(uuid: uuid, handles: entry.foundHandle...entry.groupEndHandle))
                next = Int(entry.groupEndHandle) + 1
            }
            guard next > start else { throw .malformedResponse("Find By Type Value Response did not advance past \(UInt16(start).hexLiteral)") }
            start = next
        }
        return services
    }

    /// Find Included Services (4.5.1): Read By Type 0x2802 over the service's range; a 128-bit
    /// included service UUID is read from its declaration.
    public func discoverIncludedServices(of service: RemoteService) async throws(GATTClientError) -> [RemoteService] {
        try await procedure { () async throws(GATTClientError) -> [RemoteService] in
            var included: [RemoteService] = []
            var start = Int(service.handles.lowerBound)
            let end = service.handles.upperBound
            while start <= Int(end) {
                let request = ATTPDU.readByTypeRequest(startHandle: UInt16(start), endHandle: end, attributeType: GATTUUID.include)
                guard let response = try await transactUntilNotFound(request) else { break }
                guard case let .readByTypeResponse(list) = response else { throw unexpected(response, .readByTypeResponse) }
                var next = start
                for entry in list.entries {
                    guard Int(entry.handle) >= next, entry.handle <= end else {
                        throw .malformedResponse("include declaration at \(entry.handle.hexLiteral) is outside \(UInt16(clamping: next).hexLiteral)…\(end.hexLiteral)")
                    }
                    included.append(try await includedService(entry))
                    next = Int(entry.handle) + 1
                }
                guard next > start else { throw .malformedResponse("Read By Type Response did not advance past \(UInt16(start).hexLiteral)") }
                start = next
            }
            state.withLock { $0.cache.services[service.handles.lowerBound]?.includedServices = included }
            return included
        }
    }

    /// An include declaration's value: start, end and a 16-bit UUID, or only start and end (3.2).
    private func includedService(_ entry: ATTHandleValue) async throws(GATTClientError) -> RemoteService {
        var reader = ByteReader(entry.value)
        guard entry.value.count == 6 || entry.value.count == 4,
              let start = try? reader.readUInt16(), let end = try? reader.readUInt16(), start != 0, start <= end else {
            throw .malformedResponse("include declaration at \(entry.handle.hexLiteral) has an invalid value \(entry.value.hexString)")
        }
        let uuid: BluetoothUUID
        if entry.value.count == 6, let short = BluetoothUUID(littleEndian: Array(entry.value[4...])) {
            uuid = short
        } else {
            let response = try await transact(.readRequest(handle: start))
            guard case let .readResponse(value) = response, value.count == 16, let long = BluetoothUUID(littleEndian: value) else {
                throw .malformedResponse("included service declaration at \(start.hexLiteral) does not hold a 128-bit UUID")
            }
            uuid = long
        }
        let isPrimary = state.withLock { $0.cache.services[start] != nil }
        return RemoteService(uuid: uuid, handles: start...end, isPrimary: isPrimary)
    }

    // MARK: Helpers

    /// The response, or nil when the server answered Attribute Not Found: the end of a discovery.
    func transactUntilNotFound(_ request: ATTPDU) async throws(GATTClientError) -> ATTPDU? {
        do throws(GATTClientError) {
            return try await transact(request)
        } catch {
            if case let .attError(code, _, _) = error, code == .attributeNotFound { return nil }
            throw error
        }
    }

    func unexpected(_ response: ATTPDU, _ expected: ATTOpcode) -> GATTClientError {
        .unexpectedResponse(expected: expected, got: response.opcode)
    }
}
