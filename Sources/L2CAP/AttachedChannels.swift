import HCI
import Synchronization

/// Which `L2CAPFixedChannels` serves each link table, so a second one cannot silently take the
/// table's single data handler from the first. Entries are weak: a host that goes away frees its slot.
enum AttachedChannels {
    enum Claim { case claimed, alreadyOurs, takenByAnother }

    private struct Entry {
        weak var links: LinkTable?
        weak var channels: L2CAPFixedChannels?
    }

    private static let table = Mutex<[ObjectIdentifier: Entry]>([:])

    static func claim(_ links: LinkTable, by channels: L2CAPFixedChannels) -> Claim {
        table.withLock { table in
            // Identifiers of freed objects are reused: drop entries whose objects are gone first.
            table = table.filter { $0.value.links != nil && $0.value.channels != nil }
            let key = ObjectIdentifier(links)
            if let entry = table[key], entry.links === links, let owner = entry.channels {
                return owner === channels ? .alreadyOurs : .takenByAnother
            }
            table[key] = Entry(links: links, channels: channels)
            return .claimed
        }
    }
}
