import ATT
import BLECore
import GATT

// Prepare Write and Execute Write (Core Vol 3 Part F 3.4.6).
extension GATTServer {
    /// Handle, permissions and security are checked now; offsets and lengths only at execution
    /// (3.4.6.1). The queue is bounded per link in entries and octets.
    func prepareWrite(handle: UInt16, offset: UInt16, part: [UInt8], context: ConnectionContext) throws(RequestError) -> ATTPDU {
        _ = try writableAttribute(handle, kind: .preparedExecution, context: context)
        let limits = (entries: configuration.maxPreparedWrites, bytes: configuration.maxPreparedBytes)
        let queued = state.withLock { state -> Bool in
            guard var entry = state.connections[context.link.id] else {
                return true // The link is gone; the response is dropped anyway.
            }
            defer { state.connections[context.link.id] = entry }
            guard state.databaseGeneration == context.databaseGeneration else {
                // Checked against a database replaced since: as if queued and then emptied by the
                // replacement, so the next Execute Write fails.
                if entry.discardedPreparedWrite == nil { entry.discardedPreparedWrite = handle }
                return true
            }
            guard entry.prepareQueue.count < limits.entries, entry.preparedBytes + part.count <= limits.bytes else {
                return false
            }
            entry.prepareQueue.append(PreparedWrite(handle: handle, offset: offset, part: part))
            entry.preparedBytes += part.count
            return true
        }
        guard queued else { throw RequestError(handle, .prepareQueueFull) }
        return .prepareWriteResponse(handle: handle, offset: offset, partValue: part)
    }

    /// The whole queue is validated before anything is applied, then applied as one batch: all handles
    /// or none. The queue is empty afterwards whatever the outcome. When `replaceDatabase` emptied
    /// the queue since the first Prepare Write, executing fails with Invalid Handle (nothing applied).
    func executeWrite(_ flags: ATTExecuteWriteFlags, context: ConnectionContext) async throws(RequestError) {
        let (queue, discarded) = withConnection(context) { entry -> ([PreparedWrite], UInt16?) in
            defer {
                entry.prepareQueue = []
                entry.preparedBytes = 0
                entry.discardedPreparedWrite = nil
            }
            return (entry.prepareQueue, entry.discardedPreparedWrite)
        } ?? ([], nil)
        guard flags == .write else { return }
        if let discarded { throw RequestError(discarded, .invalidHandle) }
        guard !queue.isEmpty else { return }
        let writes = try plan(queue, context: context)
        try await apply(writes, kind: .preparedExecution, context: context)
    }

    /// Assembles each handle's value from offset 0 (the Write Long Characteristic Values procedure):
    /// a part must start within what the earlier parts of that handle built, else Invalid Offset.
    /// Errors name the handle of the first entry that fails.
    private func plan(_ queue: [PreparedWrite], context: ConnectionContext) throws(RequestError) -> [PlannedWrite] {
        var order: [UInt16] = []
        var assembled: [UInt16: [UInt8]] = [:]
        var attributes: [UInt16: Attribute] = [:]
        for entry in queue {
            let handle = entry.handle
            if attributes[handle] == nil {
                // Security or the database cannot change between prepare and execute in a way that
                // makes this redundant: the link may have lost encryption, so check again.
                attributes[handle] = try writableAttribute(handle, kind: .preparedExecution, context: context)
                order.append(handle)
            }
            var value = assembled[handle] ?? []
            let offset = Int(entry.offset)
            guard offset <= value.count else { throw RequestError(handle, .invalidOffset) }
            let end = offset + entry.part.count
            guard end <= ATTConstants.maximumAttributeValueLength else {
                throw RequestError(handle, .invalidAttributeValueLength)
            }
            value.replaceSubrange(offset..<min(end, value.count), with: entry.part)
            assembled[handle] = value
        }
        var writes: [PlannedWrite] = []
        for handle in order {
            guard let attribute = attributes[handle], let value = assembled[handle] else { continue }
            writes.append(try planValue(value, for: attribute, kind: .preparedExecution, context: context))
        }
        return writes
    }
}
