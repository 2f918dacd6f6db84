import HCI
import Synchronization

/// The centrals connected to our GATT server, by link: what the application's events name.
/// A central is added when its link opens, before the server sees the link's first PDU, and
/// removed when it closes.
final class ConnectedCentrals: Sendable {
    private let centrals = Mutex<[LinkID: ConnectedCentral]>([:])

    /// `false` if the link's central was already known.
    @discardableResult
    func add(_ central: ConnectedCentral) -> Bool {
        centrals.withLock { centrals in
            guard centrals[central.link.id] == nil else { return false }
            centrals[central.link.id] = central
            return true
        }
    }

    func remove(_ link: LinkID) {
        _ = centrals.withLock { $0.removeValue(forKey: link) }
    }

    func central(on link: LinkID) -> ConnectedCentral? { centrals.withLock { $0[link] } }

    /// The connected ones among `links`, in their order.
    func centrals(on links: [LinkID]) -> [ConnectedCentral] {
        centrals.withLock { centrals in links.compactMap { centrals[$0] } }
    }
}
