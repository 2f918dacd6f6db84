import ATT
import BLECore

// Writing values (Core Vol 3 Part G 4.9.1, 4.9.3, 4.9.4, 4.12.3).
extension GATTClient {
    /// Writes a characteristic value with response; see `write(_:toHandle:)`.
    public func write(_ value: [UInt8], to characteristic: RemoteCharacteristic) async throws(GATTClientError) {
        try await write(value, toHandle: characteristic.valueHandle)
    }

    /// Writes a descriptor value with response.
    public func writeDescriptor(_ value: [UInt8], to descriptor: RemoteDescriptor) async throws(GATTClientError) {
        try await write(value, toHandle: descriptor.handle)
    }

    /// Write Request when the value fits ATT_MTU − 3, else Write Long Values: Prepare Write parts
    /// (each echo checked against what was sent) and Execute Write. On a failed or mismatching part
    /// the server's prepare queue is cancelled before the error is thrown.
    public func write(_ value: [UInt8], toHandle handle: UInt16) async throws(GATTClientError) {
        guard handle != 0 else { throw .invalidHandle }
        let maximum = ATTConstants.maximumAttributeValueLength
        guard value.count <= maximum else { throw .valueTooLong(length: value.count, maximum: maximum) }
        try await procedure { () async throws(GATTClientError) in
            let mtu = link.mtu
            if value.count <= mtu - 3 {
                let response = try await transact(.writeRequest(handle: handle, value: value))
                guard case .writeResponse = response else { throw unexpected(response, .writeResponse) }
            } else {
                try await writeLong(value, to: handle, partLength: mtu - 5)
            }
        }
    }

    private func writeLong(_ value: [UInt8], to handle: UInt16, partLength: Int) async throws(GATTClientError) {
        var offset = 0
        while offset < value.count {
            let part = Array(value[offset..<min(offset + partLength, value.count)])
            let response: ATTPDU
            do throws(GATTClientError) {
                response = try await transact(.prepareWriteRequest(handle: handle, offset: UInt16(offset), partValue: part))
            } catch {
                await cancelPreparedWrites()
                throw error
            }
            guard case let .prepareWriteResponse(echoedHandle, echoedOffset, echoedPart) = response,
                  echoedHandle == handle, Int(echoedOffset) == offset, echoedPart == part else {
                await cancelPreparedWrites()
                throw .malformedResponse("Prepare Write Response does not echo the part sent for \(handle.hexLiteral) at offset \(offset); the write was cancelled")
            }
            offset += part.count
        }
        let response = try await transact(.executeWriteRequest(.write))
        guard case .executeWriteResponse = response else { throw unexpected(response, .executeWriteResponse) }
    }

    /// Execute Write with flags 0x00: the server discards what this client prepared. Best effort:
    /// the procedure already failed, and a dead bearer has no queue worth cancelling.
    private func cancelPreparedWrites() async {
        _ = try? await transact(.executeWriteRequest(.cancel))
    }

    // MARK: Write Without Response

    /// Write Without Response (Write Command): returns false, without sending, when the link has no
    /// room now; `readyToSendWriteWithoutResponse` then yields once room is back. Never waits.
    @discardableResult
    public func writeWithoutResponse(_ value: [UInt8], to characteristic: RemoteCharacteristic) throws(GATTClientError) -> Bool {
        try writeWithoutResponse(value, toHandle: characteristic.valueHandle)
    }

    @discardableResult
    public func writeWithoutResponse(_ value: [UInt8], toHandle handle: UInt16) throws(GATTClientError) -> Bool {
        guard handle != 0 else { throw .invalidHandle }
        let maximum = maximumWriteValueLength(withResponse: false)
        guard value.count <= maximum else { throw .valueTooLong(length: value.count, maximum: maximum) }
        if let terminal = state.withLock({ $0.terminal }) { throw terminal }
        guard output.hasRoomForCommand(link) else {
            awaitRoom()
            return false
        }
        switch output.send(link, ATTPDU.writeCommand(handle: handle, value: value).encode()) {
        case .sent:
            return true
        case .full:
            awaitRoom()
            return false
        case .closed:
            throw .disconnected
        }
    }

    /// Whether a Write Without Response would be sent now. When false, `readyToSendWriteWithoutResponse`
    /// yields once room is back.
    public var canSendWriteWithoutResponse: Bool {
        guard state.withLock({ $0.terminal }) == nil else { return false }
        if output.hasRoomForCommand(link) { return true }
        awaitRoom()
        return false
    }

    /// The facade calls this whenever the link's transmit queue drained (ACL credits came back).
    public func roomAvailable() {
        let wanted = state.withLock { state -> Bool in
            defer { state.wantsReadySignal = false }
            return state.wantsReadySignal
        }
        if wanted { readySink.yield(()) }
    }

    /// The longest value one write can carry: 512 with response (long writes), ATT_MTU − 3 without.
    public func maximumWriteValueLength(withResponse: Bool) -> Int {
        withResponse ? ATTConstants.maximumAttributeValueLength : link.mtu - 3
    }

    private func awaitRoom() {
        state.withLock { $0.wantsReadySignal = true }
        // Room may have come back between the check and the flag; the drain's signal would be lost.
        if output.hasRoomForCommand(link) { roomAvailable() }
    }
}
