import ATT
import BLECore
import GATT

// GATT procedures (Core spec Vol 3 Part G 4) on top of `transact`. Each checks that the server's
// answers stay inside the requested handle range and move forward, so a broken server ends a
// procedure with `invalidResponse` instead of looping.
extension DemoGATTClient {
    /// Exchange MTU (4.3.1); returns the ATT_MTU both sides use from now on.
    @discardableResult
    func exchangeMTU(_ clientRxMTU: UInt16 = 247) async throws(DemoGATTError) -> Int {
        let response = try await transact(.exchangeMTURequest(clientRxMTU: clientRxMTU))
        guard case let .exchangeMTUResponse(serverRxMTU) = response else { throw unexpected(response, to: .exchangeMTURequest) }
        let mtu = ATTConstants.negotiatedMTU(clientRxMTU: clientRxMTU, serverRxMTU: serverRxMTU)
        setMTU(mtu)
        return mtu
    }

    /// Every primary service, its characteristics and their descriptors.
    func discoverAll() async throws(DemoGATTError) -> [DiscoveredService] {
        var services = try await discoverPrimaryServices()
        for index in services.indices {
            var characteristics = try await discoverCharacteristics(of: services[index])
            for characteristicIndex in characteristics.indices {
                characteristics[characteristicIndex].descriptors = try await discoverDescriptors(of: characteristics[characteristicIndex])
            }
            services[index].characteristics = characteristics
        }
        return services
    }

    /// Discover All Primary Services (4.4.1): Read By Group Type 0x2800 until Attribute Not Found.
    func discoverPrimaryServices() async throws(DemoGATTError) -> [DiscoveredService] {
        var services: [DiscoveredService] = []
        var start: UInt16 = 0x0001
        while true {
            let request = ATTPDU.readByGroupTypeRequest(startHandle: start, endHandle: 0xFFFF, groupType: GATTUUID.primaryService)
            guard let response = try await transactUntilNotFound(request) else { return services }
            guard case let .readByGroupTypeResponse(list) = response else { throw unexpected(response, to: request.opcode) }
            for entry in list.entries {
                guard entry.handle >= start, entry.endGroupHandle >= entry.handle else {
                    throw invalid(request, "service at \(hex4(entry.handle))…\(hex4(entry.endGroupHandle)) is outside the range from \(hex4(start))")
                }
                guard entry.value.count == 2 || entry.value.count == 16, let uuid = BluetoothUUID(littleEndian: entry.value) else {
                    throw invalid(request, "service UUID of \(entry.value.count) octet(s); it must be 2 or 16")
                }
                services.append(DiscoveredService(uuid: uuid, startHandle: entry.handle, endHandle: entry.endGroupHandle))
                start = entry.endGroupHandle
            }
            guard start < 0xFFFF else { return services }
            start += 1
        }
    }

    /// Discover All Characteristics of a Service (4.6.1): Read By Type 0x2803 over the service's range.
    func discoverCharacteristics(of service: DiscoveredService) async throws(DemoGATTError) -> [DiscoveredCharacteristic] {
        var found: [DiscoveredCharacteristic] = []
        var start = service.startHandle
        while start <= service.endHandle {
            let request = ATTPDU.readByTypeRequest(startHandle: start, endHandle: service.endHandle, attributeType: GATTUUID.characteristic)
            guard let response = try await transactUntilNotFound(request) else { break }
            guard case let .readByTypeResponse(list) = response else { throw unexpected(response, to: request.opcode) }
            for entry in list.entries {
                found.append(try declaration(entry, from: start, in: service, request: request))
                start = entry.handle
            }
            guard start < service.endHandle else { break }
            start += 1
        }
        // A characteristic's descriptors run up to the next declaration, or the end of the service.
        for index in found.indices {
            found[index].endHandle = index + 1 < found.count ? found[index + 1].declarationHandle - 1 : service.endHandle
        }
        return found
    }

    /// Discover All Characteristic Descriptors (4.7.1): Find Information after the value handle.
    func discoverDescriptors(of characteristic: DiscoveredCharacteristic) async throws(DemoGATTError) -> [DiscoveredDescriptor] {
        var found: [DiscoveredDescriptor] = []
        guard characteristic.valueHandle < characteristic.endHandle else { return found }
        var start = characteristic.valueHandle + 1
        while start <= characteristic.endHandle {
            let request = ATTPDU.findInformationRequest(startHandle: start, endHandle: characteristic.endHandle)
            guard let response = try await transactUntilNotFound(request) else { break }
            guard case let .findInformationResponse(data) = response else { throw unexpected(response, to: request.opcode) }
            for entry in data.entries {
                guard entry.handle >= start, entry.handle <= characteristic.endHandle else {
                    throw invalid(request, "descriptor handle \(hex4(entry.handle)) is outside \(hex4(start))…\(hex4(characteristic.endHandle))")
                }
                found.append(DiscoveredDescriptor(handle: entry.handle, uuid: entry.uuid))
                start = entry.handle
            }
            guard start < characteristic.endHandle else { break }
            start += 1
        }
        return found
    }

    /// Read Characteristic Value / Read Long (4.8.1, 4.8.3): Read, then Read Blob while parts fill MTU − 1.
    func read(handle: UInt16) async throws(DemoGATTError) -> [UInt8] {
        let request = ATTPDU.readRequest(handle: handle)
        let response = try await transact(request)
        guard case var .readResponse(value) = response else { throw unexpected(response, to: request.opcode) }
        var partLength = value.count
        while partLength == mtu - 1, value.count < ATTConstants.maximumAttributeValueLength {
            let blob = ATTPDU.readBlobRequest(handle: handle, offset: UInt16(value.count))
            let part: ATTPDU
            do {
                part = try await transact(blob)
            } catch let error where error.isEndOfLongValue {
                // The value was exactly MTU − 1 (or the offset reached its end): it is complete.
                break
            }
            guard case let .readBlobResponse(bytes) = part else { throw unexpected(part, to: blob.opcode) }
            value += bytes
            partLength = bytes.count
        }
        return value
    }

    /// Write Characteristic Value (4.9.3): Write Request, answered by Write Response.
    func write(handle: UInt16, value: [UInt8]) async throws(DemoGATTError) {
        let request = ATTPDU.writeRequest(handle: handle, value: value)
        let response = try await transact(request)
        guard case .writeResponse = response else { throw unexpected(response, to: request.opcode) }
    }

    /// Turns on notifications (preferred) or indications by writing the CCCD; returns which.
    @discardableResult
    func subscribe(to characteristic: DiscoveredCharacteristic) async throws(DemoGATTError) -> ClientConfiguration {
        guard let cccd = characteristic.clientConfigurationHandle, !characteristic.properties.isDisjoint(with: .anyUpdate) else {
            throw .notSubscribable(characteristic.uuid, valueHandle: characteristic.valueHandle)
        }
        let configuration: ClientConfiguration = characteristic.properties.contains(.notify) ? .notifications : .indications
        try await write(handle: cccd, value: configuration.bytes)
        return configuration
    }

    // MARK: Helpers

    /// The response, or nil when the server answered Attribute Not Found: the end of a discovery.
    private func transactUntilNotFound(_ request: ATTPDU) async throws(DemoGATTError) -> ATTPDU? {
        do {
            return try await transact(request)
        } catch let error where error.isAttributeNotFound {
            return nil
        }
    }

    /// A characteristic declaration value: properties (1), value handle (2), UUID (2 or 16) (3.3.1).
    private func declaration(_ entry: ATTHandleValue, from start: UInt16, in service: DiscoveredService,
                             request: ATTPDU) throws(DemoGATTError) -> DiscoveredCharacteristic {
        guard entry.handle >= start, entry.handle <= service.endHandle else {
            throw invalid(request, "declaration handle \(hex4(entry.handle)) is outside \(hex4(start))…\(hex4(service.endHandle))")
        }
        let value = entry.value
        guard value.count == 5 || value.count == 19, let uuid = BluetoothUUID(littleEndian: Array(value[3...])) else {
            throw invalid(request, "declaration at \(hex4(entry.handle)) has \(value.count) octet(s); it must be 5 or 19")
        }
        let valueHandle = UInt16(value[1]) | UInt16(value[2]) << 8
        guard valueHandle > entry.handle, valueHandle <= service.endHandle else {
            throw invalid(request, "declaration at \(hex4(entry.handle)) names value handle \(hex4(valueHandle)) outside its service")
        }
        return DiscoveredCharacteristic(uuid: uuid, declarationHandle: entry.handle, valueHandle: valueHandle,
                                        properties: CharacteristicProperties(rawValue: value[0]), endHandle: service.endHandle)
    }

    private func unexpected(_ response: ATTPDU, to request: ATTOpcode) -> DemoGATTError {
        .invalidResponse(request: request, reason: "answered with \(response.opcode)")
    }

    private func invalid(_ request: ATTPDU, _ reason: String) -> DemoGATTError {
        .invalidResponse(request: request.opcode, reason: reason)
    }
}

extension DemoGATTError {
    var isAttributeNotFound: Bool {
        if case .attribute(.attributeNotFound, _, _) = self { return true }
        return false
    }

    /// Read Blob's ways of saying there is nothing past the offset.
    var isEndOfLongValue: Bool {
        if case let .attribute(code, _, _) = self { return code == .attributeNotLong || code == .invalidOffset }
        return false
    }
}
