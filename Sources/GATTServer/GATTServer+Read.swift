import ATT
import BLECore
import GATT

// Read, Read Blob, Read Multiple, Read Multiple Variable Length (Core Vol 3 Part F 3.4.4.3–3.4.4.12).
extension GATTServer {
    func read(handle: UInt16, context: ConnectionContext) async throws(RequestError) -> ATTPDU {
        let attribute = try readableAttribute(handle, context: context)
        let value = try await freshValue(of: attribute, context: context)
        noteDatabaseHashRead(attribute, context: context)
        return .readResponse(value: value, mtu: currentMTU(context))
    }

    /// Offsets up to the value's length are answered, the length itself with an empty part; Attribute
    /// Not Long is optional (3.4.4.5: "may") and not used, so a client may read any value in blobs.
    func readBlob(handle: UInt16, offset: UInt16, context: ConnectionContext) async throws(RequestError) -> ATTPDU {
        let attribute = try readableAttribute(handle, context: context)
        let value: [UInt8]
        if offset == 0 {
            value = try await freshValue(of: attribute, context: context)
        } else if let snapshot = withCurrentDatabase(context, { $0.readSnapshots[handle] }) ?? nil {
            value = snapshot
        } else {
            value = try await freshValue(of: attribute, context: context)
        }
        do {
            return try ATTPDU.readBlobResponse(value: value, offset: offset, mtu: currentMTU(context))
        } catch {
            throw RequestError(handle, error)
        }
    }

    /// The value now; an application value is kept as this link's snapshot so the blobs of one
    /// long read come from one consistent value.
    private func freshValue(of attribute: Attribute, context: ConnectionContext) async throws(RequestError) -> [UInt8] {
        let value = try await self.value(of: attribute, context: context)
        if isApplicationValue(attribute) {
            withCurrentDatabase(context) { $0.readSnapshots[attribute.handle] = value }
        }
        return value
    }

    /// Every handle is checked in request order and the first failure is answered with its handle.
    func readMultiple(handles: [UInt16], variable: Bool, context: ConnectionContext) async throws(RequestError) -> ATTPDU {
        var attributes: [Attribute] = []
        for handle in handles {
            attributes.append(try readableAttribute(handle, context: context))
        }
        var values: [[UInt8]] = []
        for attribute in attributes {
            values.append(try await value(of: attribute, context: context))
        }
        let mtu = currentMTU(context)
        return variable ? .readMultipleVariableResponse(fitting: values, mtu: mtu)
                        : .readMultipleResponse(values: values, mtu: mtu)
    }
}
