import ATT
import BLECore
import GATT
import HCI

// Snapshots and restoration of a client's per-link state, so the layer that knows about bonds can
// carry it across connections without the server knowing about bonds.
extension GATTServer {
    /// The client's state on `link`; nil when the link is not served.
    public func clientState(of link: Link) -> GATTClientState? {
        state.withLock { state in
            guard let entry = state.connections[link.id] else { return nil }
            return GATTClientState(configurations: state.clientConfigurations.configurations(for: link.id),
                                   clientSupportedFeatures: entry.clientFeatures,
                                   changeAware: !entry.robustCachingEnabled || entry.caching.changeAware)
        }
    }

    /// Makes `stored` (kept from an earlier connection of the same bonded client) the client's state
    /// on `link`, as if the client had written it, and returns the configurations that changed; nil
    /// when the link is not served.
    ///
    /// What the client did on this link wins, being newer: CCCDs it wrote here (even to zero) are
    /// kept, Client Supported Features are merged (bits are never cleared, Core Vol 3 Part G 7.2),
    /// and it stays change-unaware if either says so. A CCCD whose write the link's current security
    /// would refuse, or whose characteristic no longer allows those bits, is not restored: a value
    /// that needs encryption never reaches a link that lacks it. Restored configurations are
    /// reported to the delegate with `subscriptionChanged`, like written ones.
    public func restoreClientState(_ stored: GATTClientState, on link: Link) -> [(CharacteristicID, ClientConfiguration)]? {
        var refused: [CharacteristicID] = []
        let changes = state.withLock { state -> [(CharacteristicID, ClientConfiguration)]? in
            guard var entry = state.connections[link.id] else { return nil }
            let context = ConnectionContext(link: link, security: link.security, database: state.database,
                                            databaseGeneration: state.databaseGeneration)
            var changes: [(CharacteristicID, ClientConfiguration)] = []
            for (id, configuration) in stored.configurations.sorted(by: { $0.key.rawValue < $1.key.rawValue })
                where !entry.writtenConfigurations.contains(id) {
                guard let handle = state.database.cccdHandle(for: id), let attribute = state.database.attribute(at: handle),
                      accessError(.write(.request), attribute, context: context) == nil else {
                    refused.append(id)
                    continue
                }
                if case let .updated(_, current) = state.clientConfigurations.write(configuration.rawValue, to: id, for: link.id) {
                    changes.append((id, current))
                }
            }
            let count = max(entry.clientFeatures.count, stored.clientSupportedFeatures.count)
            entry.clientFeatures = (0..<count).map { index in
                (index < entry.clientFeatures.count ? entry.clientFeatures[index] : 0)
                    | (index < stored.clientSupportedFeatures.count ? stored.clientSupportedFeatures[index] : 0)
            }
            if entry.robustCachingEnabled, !stored.changeAware, entry.caching.changeAware { entry.caching.databaseChanged() }
            state.connections[link.id] = entry
            return changes
        }
        if !refused.isEmpty {
            logger.info("GATT: stored subscriptions not restored (the link's security does not allow them, or the characteristic changed): \(refused.map(\.rawValue).sorted())",
                        metadata: ["link": "\(link.id)"])
        }
        for (id, configuration) in changes ?? [] {
            delegate.subscriptionChanged(link: link, characteristic: id, configuration: configuration)
        }
        return changes
    }
}
