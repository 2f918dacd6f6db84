import BLECore
import Bonding
import ControlSocket
import GATT
import GATTNotify
import HCI
import Peripheral
import Synchronization

/// The connected centrals and what each subscribed to, kept from the peripheral's events, for
/// `status`. Keyed by the link object's identity, never by a connection handle.
final class CentralRegistry: Sendable {
    private struct Entry {
        let central: ConnectedCentral
        var subscriptions: [CharacteristicID] = []
    }

    /// Characteristic → "2A37 notify" as status shows it.
    private let labels: [CharacteristicID: String]
    private let entries = Mutex<[LinkID: Entry]>([:])

    init(services: [GATTService]) {
        // Service Changed is the GATT service's own, not among the bridge's services.
        var labels: [CharacteristicID: String] = [.serviceChanged: "2A05 indicate"]
        for service in services {
            for characteristic in service.characteristics {
                guard let id = characteristic.id else { continue }
                let mode = characteristic.properties.contains(.indicate) && !characteristic.properties.contains(.notify) ? "indicate" : "notify"
                labels[id] = "\(characteristic.uuid) \(mode)"
            }
        }
        self.labels = labels
    }

    func connected(_ central: ConnectedCentral) { entries.withLock { $0[central.link.id] = Entry(central: central) } }
    func disconnected(_ central: ConnectedCentral) { _ = entries.withLock { $0.removeValue(forKey: central.link.id) } }

    func subscribed(_ central: ConnectedCentral, _ characteristic: CharacteristicID) {
        entries.withLock { entries in
            guard entries[central.link.id]?.subscriptions.contains(characteristic) == false else { return }
            entries[central.link.id]?.subscriptions.append(characteristic)
        }
    }

    func unsubscribed(_ central: ConnectedCentral, _ characteristic: CharacteristicID) {
        entries.withLock { $0[central.link.id]?.subscriptions.removeAll { $0 == characteristic } }
    }

    var count: Int { entries.withLock { $0.count } }

    /// Connected, and whether it subscribed to anything yet (nil once it is gone).
    func hasSubscriptions(_ central: ConnectedCentral) -> Bool? {
        entries.withLock { $0[central.link.id].map { !$0.subscriptions.isEmpty } }
    }

    /// Identity addresses (as bonds are keyed) of the connected centrals: a bond's "connected now".
    var connectedIdentities: Set<DeviceAddress> {
        let links = entries.withLock { $0.values.map(\.central.link) }
        return Set(links.map { $0.identity.bondIdentity })
    }

    /// "2A37 notify" for a characteristic of the bridge, its identifier otherwise (Service Changed).
    func label(_ characteristic: CharacteristicID) -> String { labels[characteristic] ?? characteristic.rawValue }

    /// Each central with its queue counters from the notification engine.
    func statuses(statistics: NotificationStatistics?) -> [CentralStatus] {
        let current = entries.withLock { entries in entries.values.sorted { $0.central.link.id < $1.central.link.id } }
        return current.map { entry in
            let link = entry.central.link
            let connection = statistics?.connections[link.id]
            let counters = connection?.counters ?? NotificationStatistics.Counters()
            let security = link.security
            return CentralStatus(
                address: link.peer.address.description,
                addressType: link.peer.type.description,
                mtu: link.mtu,
                security: Self.securityName(security.level),
                subscriptions: entry.subscriptions.map { labels[$0] ?? $0.rawValue },
                sent: counters.sent,
                coalesced: counters.coalesced + counters.merged,
                dropped: counters.rejected + counters.dropped + counters.abandoned + counters.unconfirmed,
                queued: connection?.queuedEntries ?? 0,
                bonded: link.isBonded,
                securityLevel: Self.securityName(security.level),
                keySize: security.keySize)
        }
    }

    static func securityName(_ level: LinkSecurityLevel) -> String {
        switch level {
        case .none: return "none"
        case .unauthenticated: return "unauthenticated"
        case .authenticated: return "authenticated"
        case .authenticatedSecureConnections: return "authenticated-secure-connections"
        }
    }
}
