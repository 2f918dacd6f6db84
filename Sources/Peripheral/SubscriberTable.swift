import BLECore
import GATT
import GATTNotify
import HCI
import Synchronization

/// Everything `updateValue` needs about a characteristic, found with one lookup: its value handle,
/// its update policy and which links are subscribed, kept up to date from CCCD writes and link
/// closures so the hot path reads ready-made target lists (no allocation, one hash of the identifier).
///
/// The GATT server's CCCD values are the record of what each client asked for; this table is their
/// index for `updateValue`, never a second record. Its subscription rows have one writer,
/// `PeripheralServerDelegate.subscriptionChanged`, which the server calls for every CCCD change, a
/// client's write or one restored from a bond alike; a link's rows go when the link closes
/// (`SubscriberAttachment`, and `restoreBondedState` for a link that closed during a restore).
///
/// With bonds, the same lookup also keeps the characteristic's last value (sent to a bonded central
/// that comes back after it changed) and hands out, once, the bonded centrals that are subscribed
/// but away and not yet flagged as having missed a change of it.
final class SubscriberTable: Sendable {
    struct Targets: Sendable {
        var valueHandle: UInt16 = 0
        var policy: UpdatePolicy = .latestValue
        var notify: [LinkID] = []
        var indicate: [LinkID] = []
    }

    struct Entry {
        var targets = Targets()
        var lastValue: [UInt8]? = nil
        /// Bonded identities subscribed but not connected (or not yet encrypted again) whose
        /// changed-while-away flag for this characteristic is not set yet.
        var awayUnflagged: [DeviceAddress] = []
    }

    private let table = Mutex<[CharacteristicID: Entry]>([:])
    /// Without bonds nobody reads last values, so the hot path does not keep them.
    let keepsLastValues: Bool

    init(keepsLastValues: Bool = false) { self.keepsLastValues = keepsLastValues }

    func targets(of characteristic: CharacteristicID) -> Targets? {
        table.withLock { $0[characteristic]?.targets }
    }

    /// `targets(of:)` for an update of every subscriber: remembers `value` and takes the away
    /// centrals to flag (each is handed out once until `setAway` names it again).
    func recordUpdate(of characteristic: CharacteristicID, value: [UInt8]) -> (Targets, away: [DeviceAddress])? {
        guard keepsLastValues else { return targets(of: characteristic).map { ($0, []) } }
        return table.withLock { table in
            guard table[characteristic] != nil else { return nil }
            table[characteristic]?.lastValue = value
            let away = table[characteristic]?.awayUnflagged ?? []
            if !away.isEmpty { table[characteristic]?.awayUnflagged = [] }
            return table[characteristic].map { ($0.targets, away) }
        }
    }

    func lastValue(of characteristic: CharacteristicID) -> [UInt8]? {
        table.withLock { $0[characteristic]?.lastValue }
    }

    /// Replaces every characteristic's away list.
    func setAway(_ away: [CharacteristicID: [DeviceAddress]]) {
        table.withLock { table in
            for key in Array(table.keys) { table[key]?.awayUnflagged = away[key] ?? [] }
        }
    }

    /// Registers every characteristic of a published database with its value handle.
    func publish(_ valueHandles: [CharacteristicID: UInt16]) {
        table.withLock { table in
            for (id, handle) in valueHandles { table[id, default: Entry()].targets.valueHandle = handle }
        }
    }

    /// The database was replaced: characteristics in `valueHandles` take their (possibly moved) value
    /// handles and keep policy and subscribers; routes of `removed` characteristics go with their
    /// subscribers, so an update for them finds no route.
    func republish(_ valueHandles: [CharacteristicID: UInt16], removed: Set<CharacteristicID>) {
        table.withLock { table in
            for id in removed { table[id] = nil }
            for (id, handle) in valueHandles { table[id, default: Entry()].targets.valueHandle = handle }
        }
    }

    func setPolicy(_ policy: UpdatePolicy, for characteristic: CharacteristicID) {
        table.withLock { $0[characteristic, default: Entry()].targets.policy = policy }
    }

    /// Indications win when a client enabled both, as a central asking for both wants confirmation.
    func update(_ link: LinkID, characteristic: CharacteristicID, configuration: ClientConfiguration) {
        table.withLock { table in
            var targets = table[characteristic]?.targets ?? Targets()
            targets.notify.removeAll { $0 == link }
            targets.indicate.removeAll { $0 == link }
            if configuration.contains(.indications) {
                targets.indicate.append(link)
            } else if configuration.contains(.notifications) {
                targets.notify.append(link)
            }
            table[characteristic, default: Entry()].targets = targets
        }
    }

    func remove(_ link: LinkID) {
        table.withLock { table in
            for key in Array(table.keys) {
                table[key]?.targets.notify.removeAll { $0 == link }
                table[key]?.targets.indicate.removeAll { $0 == link }
            }
        }
    }
}
