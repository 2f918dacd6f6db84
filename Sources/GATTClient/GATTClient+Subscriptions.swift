import ATT
import BLECore
import GATT

// Notifications and indications through the Client Characteristic Configuration (Core Vol 3 Part G 4.10, 4.11).
extension GATTClient {
    /// Enables notifications (or indications when preferred or the only kind offered), or disables
    /// both, by writing the characteristic's CCCD; its descriptors are discovered first when they
    /// are not cached. Values arrive on `updates`.
    public func setNotify(_ enabled: Bool, for characteristic: RemoteCharacteristic,
                          preferIndications: Bool = false) async throws(GATTClientError) {
        let properties = characteristic.properties
        var configuration: ClientConfiguration = []
        if enabled {
            if properties.contains(.indicate), preferIndications || !properties.contains(.notify) {
                configuration = .indications
            } else if properties.contains(.notify) {
                configuration = .notifications
            } else {
                throw .notPermitted("\(characteristic) has neither the notify nor the indicate property")
            }
        }
        try await procedure { () async throws(GATTClientError) in
            var cccd = state.withLock { $0.cache.clientConfigurationHandle(of: characteristic) }
            if cccd == nil {
                cccd = try await descriptors(of: characteristic).first { $0.uuid == GATTUUID.clientCharacteristicConfiguration }?.handle
            }
            guard let cccd else {
                throw .notPermitted("\(characteristic) has no Client Characteristic Configuration descriptor")
            }
            let response = try await transact(.writeRequest(handle: cccd, value: configuration.littleEndianBytes))
            guard case .writeResponse = response else { throw unexpected(response, .writeResponse) }
            state.withLock { $0.subscriptions[characteristic.valueHandle] = enabled ? cccd : nil }
        }
    }

    /// Value handles of characteristics this client subscribed to (and that Service Changed did not invalidate).
    public var subscribedValueHandles: Set<UInt16> {
        state.withLock { Set($0.subscriptions.keys) }
    }
}
