import GATT
import GATTNotify
import HCI
import Synchronization

/// Everything `updateValue` needs about a characteristic, found with one lookup: its value handle,
/// its update policy and which links are subscribed, kept up to date from CCCD writes and link
/// closures so the hot path reads ready-made target lists (no allocation, one hash of the identifier).
final class SubscriberTable: Sendable {
    struct Targets: Sendable {
        var valueHandle: UInt16 = 0
        var policy: UpdatePolicy = .latestValue
        var notify: [LinkID] = []
        var indicate: [LinkID] = []
    }

    private let table = Mutex<[CharacteristicID: Targets]>([:])

    func targets(of characteristic: CharacteristicID) -> Targets? {
        table.withLock { $0[characteristic] }
    }

    /// Registers every characteristic of a published database with its value handle.
    func publish(_ valueHandles: [CharacteristicID: UInt16]) {
        table.withLock { table in
            for (id, handle) in valueHandles { table[id, default: Targets()].valueHandle = handle }
        }
    }

    /// The database was replaced: characteristics in `valueHandles` take their (possibly moved) value
    /// handles and keep policy and subscribers; routes of `removed` characteristics go with their
    /// subscribers, so an update for them finds no route.
    func republish(_ valueHandles: [CharacteristicID: UInt16], removed: Set<CharacteristicID>) {
        table.withLock { table in
            for id in removed { table[id] = nil }
            for (id, handle) in valueHandles { table[id, default: Targets()].valueHandle = handle }
        }
    }

    func setPolicy(_ policy: UpdatePolicy, for characteristic: CharacteristicID) {
        table.withLock { $0[characteristic, default: Targets()].policy = policy }
    }

    /// Indications win when a client enabled both, as a central asking for both wants confirmation.
    func update(_ link: LinkID, characteristic: CharacteristicID, configuration: ClientConfiguration) {
        table.withLock { table in
            var targets = table[characteristic] ?? Targets()
            targets.notify.removeAll { $0 == link }
            targets.indicate.removeAll { $0 == link }
            if configuration.contains(.indications) {
                targets.indicate.append(link)
            } else if configuration.contains(.notifications) {
                targets.notify.append(link)
            }
            table[characteristic] = targets
        }
    }

    func remove(_ link: LinkID) {
        table.withLock { table in
            for key in Array(table.keys) {
                table[key]?.notify.removeAll { $0 == link }
                table[key]?.indicate.removeAll { $0 == link }
            }
        }
    }
}
