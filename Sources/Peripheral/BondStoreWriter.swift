import BLECore
import Bonding
import Logging

/// Writes bonded centrals' GATT state to the bond store off the caller's context, one write at a
/// time in the order they were asked for (a later full save never loses to an earlier CCCD write
/// that a task scheduler happened to run last). Asking never blocks; failures are logged.
final class BondStoreWriter: Sendable {
    enum Write: Sendable {
        case setCCCD(handle: UInt16, value: UInt16, identity: DeviceAddress)
        case save(PeerGATTState, identity: DeviceAddress)
        case markChanged(valueHandle: UInt16, identities: [DeviceAddress])
    }

    private let work = OrderedStoreWork()
    private let store: any BondStore
    private let logger: Logger

    init(store: any BondStore, logger: Logger) {
        self.store = store
        self.logger = logger
    }

    /// After `close` (shutdown) nothing is written any more.
    func enqueue(_ write: Write) {
        let store = store, logger = logger
        work.enqueue { await Self.perform(write, on: store, logger: logger) }
    }

    /// Returns once every write asked for so far is done (or failed and was logged).
    func settle() async { await work.settle() }

    /// Finishes the writes already asked for; later ones are dropped.
    func close() async { await work.close() }

    private static func perform(_ write: Write, on store: any BondStore, logger: Logger) async {
        do throws(BondStoreError) {
            switch write {
            case let .setCCCD(handle, value, identity):
                try await store.setCCCD(handle: handle, value: value, for: identity)
            case let .save(state, identity):
                try await store.saveGATTState(state, for: identity)
            case let .markChanged(valueHandle, identities):
                try await store.markChangedWhileAway(valueHandle: valueHandle, for: identities)
            }
        } catch {
            switch (error, write) {
            case (.notBonded, _):
                // The bond was removed while the write waited; there is nothing left to update.
                logger.debug("bond store: \(error)")
            case let (_, .setCCCD(handle, _, identity)):
                logger.error("bond store: the subscription of bonded central \(identity) (CCCD 0x\(String(handle, radix: 16))) was not saved: \(error); it works on this connection, but after reconnecting the central must subscribe again")
            case let (_, .save(_, identity)):
                logger.error("bond store: the GATT state of bonded central \(identity) was not saved: \(error); after reconnecting it may find its subscriptions gone and must subscribe again")
            case let (_, .markChanged(valueHandle, identities)):
                logger.error("bond store: could not record that characteristic value 0x\(String(valueHandle, radix: 16)) changed while \(identities.count) bonded central(s) were away: \(error); they get the next update, not the current value, when they reconnect")
            }
        }
    }
}
