import ATT
import BLECore

// Reading values (Core Vol 3 Part G 4.8.1, 4.8.3, 4.12.1).
extension GATTClient {
    /// Reads a characteristic value, long values included.
    public func read(_ characteristic: RemoteCharacteristic) async throws(GATTClientError) -> [UInt8] {
        try await read(handle: characteristic.valueHandle)
    }

    /// Reads a descriptor value, long values included.
    public func readDescriptor(_ descriptor: RemoteDescriptor) async throws(GATTClientError) -> [UInt8] {
        try await read(handle: descriptor.handle)
    }

    /// Read, then Read Blob while each part fills ATT_MTU − 1 (a value that exactly fills the first
    /// response may be long). Ends on a short part, on Attribute Not Long or Invalid Offset at the
    /// end of the value, or at the 512-octet maximum.
    public func read(handle: UInt16) async throws(GATTClientError) -> [UInt8] {
        guard handle != 0 else { throw .invalidHandle }
        return try await procedure { () async throws(GATTClientError) -> [UInt8] in
            // The MTU is read after each answer: the peer may exchange MTUs in the middle of a long read.
            let response = try await transact(.readRequest(handle: handle))
            var fullPart = link.mtu - 1
            guard case var .readResponse(value) = response else { throw unexpected(response, .readResponse) }
            guard value.count <= fullPart else {
                throw .malformedResponse("Read Response of \(value.count) octets exceeds ATT_MTU − 1 = \(fullPart)")
            }
            var partLength = value.count
            while partLength == fullPart, value.count < ATTConstants.maximumAttributeValueLength {
                let part: ATTPDU
                do throws(GATTClientError) {
                    part = try await transact(.readBlobRequest(handle: handle, offset: UInt16(value.count)))
                } catch {
                    // The value was exactly as long as what we have: nothing past this offset.
                    if case let .attError(code, _, _) = error, code == .attributeNotLong || code == .invalidOffset { break }
                    throw error
                }
                guard case let .readBlobResponse(bytes) = part else { throw unexpected(part, .readBlobResponse) }
                fullPart = link.mtu - 1
                guard bytes.count <= fullPart else {
                    throw .malformedResponse("Read Blob Response of \(bytes.count) octets exceeds ATT_MTU − 1 = \(fullPart)")
                }
                value += bytes
                partLength = bytes.count
            }
            return Array(value.prefix(ATTConstants.maximumAttributeValueLength))
        }
    }
}
