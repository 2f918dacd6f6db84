import ATT
import BLECore
import GATT
import Logging

// Write Request, Write Command (Core Vol 3 Part F 3.4.5) and the checks and effects every write shares.
extension GATTServer {
    func writeRequest(handle: UInt16, value: [UInt8], context: ConnectionContext) async throws(RequestError) {
        let planned = try planWrite(handle: handle, value: value, kind: .request, context: context)
        try await apply([planned], kind: .request, context: context)
    }

    /// A command has no response: every failure is only logged (3.4.5.3).
    func writeCommand(handle: UInt16, value: [UInt8], context: ConnectionContext) async {
        do {
            let planned = try planWrite(handle: handle, value: value, kind: .command, context: context)
            try await apply([planned], kind: .command, context: context)
        } catch {
            logger.debug("ATT: Write Command dropped: \(error.code)",
                         metadata: ["link": "\(context.link.id)", "handle": "\(error.handle)"])
        }
    }

    /// Handle, permission, property and security checks, then the value checks of the attribute.
    func planWrite(handle: UInt16, value: [UInt8], kind: GATTWriteKind,
                   context: ConnectionContext) throws(RequestError) -> PlannedWrite {
        let attribute = try writableAttribute(handle, kind: kind, context: context)
        return try planValue(value, for: attribute, kind: kind, context: context)
    }

    func writableAttribute(_ handle: UInt16, kind: GATTWriteKind, context: ConnectionContext) throws(RequestError) -> Attribute {
        guard let attribute = context.database.attribute(at: handle) else { throw RequestError(handle, .invalidHandle) }
        if let error = accessError(.write(kind), attribute, context: context) {
            throw RequestError(handle, error)
        }
        return attribute
    }

    /// The value checks of a write the access checks allowed.
    func planValue(_ value: [UInt8], for attribute: Attribute, kind: GATTWriteKind,
                   context: ConnectionContext) throws(RequestError) -> PlannedWrite {
        let handle = attribute.handle
        guard value.count <= ATTConstants.maximumAttributeValueLength else {
            throw RequestError(handle, .invalidAttributeValueLength)
        }
        switch attribute.value {
        case .fixed, .extendedProperties:
            // Declarations and static values are never writeable; the permissions already say so.
            throw RequestError(handle, .writeNotPermitted)
        case let .clientCharacteristicConfiguration(id):
            // A CCCD is written with the Write Characteristic Descriptors procedure (Core Vol 3
            // Part G 4.12.3), which is a Write Request; a Write Command cannot change a subscription.
            guard kind == .request || kind == .preparedExecution else { throw RequestError(handle, .writeNotPermitted) }
            guard let requested = ClientConfiguration(littleEndian: value) else {
                throw RequestError(handle, .invalidAttributeValueLength)
            }
            let allowed = ClientConfiguration.allowed(by: context.database.characteristic(id: id)?.properties ?? [])
            guard allowed.isSuperset(of: requested) else { throw RequestError(handle, .cccdImproperlyConfigured) }
            return .clientConfiguration(handle: handle, id, requested)
        case let .serverCharacteristicConfiguration(id):
            guard value.count == 2 else { throw RequestError(handle, .invalidAttributeValueLength) }
            let raw = UInt16(value[0]) | UInt16(value[1]) << 8
            // Only bit 0 (broadcast) is defined (Core Vol 3 Part G 3.3.3.4, Table 3.13).
            guard raw & ~0x0001 == 0 else { throw RequestError(handle, .valueNotAllowed) }
            return .serverConfiguration(handle: handle, id, raw)
        case let .characteristicValue(id):
            if isClientSupportedFeatures(id, attribute) {
                return .clientFeatures(handle: handle, try planClientFeatures(value, handle: handle, context: context))
            }
            return .application(handle: handle, GATTWriteItem(characteristic: id, value: value))
        case let .descriptorValue(id, type):
            return .application(handle: handle, GATTWriteItem(characteristic: id, descriptor: type, value: value))
        }
    }

    /// A client may set Client Supported Features bits but never clear one it set (Core Vol 3 Part G 7.2).
    private func planClientFeatures(_ value: [UInt8], handle: UInt16, context: ConnectionContext) throws(RequestError) -> [UInt8] {
        guard !value.isEmpty else { throw RequestError(handle, .invalidAttributeValueLength) }
        let current = withConnection(context) { $0.clientFeatures } ?? [0x00]
        for (index, octet) in current.enumerated() {
            let written = index < value.count ? value[index] : 0
            if octet & ~written != 0 { throw RequestError(handle, .valueNotAllowed) }
        }
        return value.count >= current.count ? value : value + current[value.count...]
    }

    /// Applies validated writes: the application's part first (it may still refuse the whole batch),
    /// then the server's own state. For commands the application's answer is ignored.
    func apply(_ writes: [PlannedWrite], kind: GATTWriteKind, context: ConnectionContext) async throws(RequestError) {
        var items: [GATTWriteItem] = []
        var firstApplicationHandle: UInt16?
        for case let .application(handle, item) in writes {
            items.append(item)
            if firstApplicationHandle == nil { firstApplicationHandle = handle }
        }
        if let firstApplicationHandle {
            let result = await delegate.write(items, link: context.link, kind: kind)
            if case let .failure(code) = result {
                switch kind {
                case .request, .preparedExecution:
                    throw RequestError(firstApplicationHandle, code)
                case .command, .signedCommand:
                    logger.debug("GATT: the application refused a write command: \(code)",
                                 metadata: ["link": "\(context.link.id)"])
                }
            }
        }
        var subscriptionChanges: [(CharacteristicID, ClientConfiguration)] = []
        var featuresChanged = false
        let written = Set(writes.map(\.handle))
        state.withLock { state in
            // Any write ends the long reads of that attribute on every link.
            for id in Array(state.connections.keys) {
                for handle in written { state.connections[id]?.readSnapshots[handle] = nil }
            }
            guard state.connections[context.link.id] != nil else { return }
            for write in writes {
                switch write {
                case .application:
                    break
                case let .clientConfiguration(_, id, configuration):
                    state.connections[context.link.id]?.writtenConfigurations.insert(id)
                    let result = state.clientConfigurations.write(configuration.rawValue, to: id, for: context.link.id)
                    if case let .updated(_, current) = result { subscriptionChanges.append((id, current)) }
                case let .clientFeatures(_, value):
                    featuresChanged = featuresChanged || state.connections[context.link.id]?.clientFeatures != value
                    state.connections[context.link.id]?.clientFeatures = value
                case let .serverConfiguration(_, id, raw):
                    state.serverConfigurations[id] = raw == 0 ? nil : raw
                }
            }
        }
        let delegate = delegate, link = context.link
        for (id, configuration) in subscriptionChanges {
            let notice: @Sendable () -> Void = { delegate.subscriptionChanged(link: link, characteristic: id, configuration: configuration) }
            if let afterAnswer = context.afterAnswer { afterAnswer.add(notice) } else { notice() }
        }
        if featuresChanged { delegate.clientStateChanged(link: link) }
    }
}
