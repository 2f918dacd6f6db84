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
        /// Resumed once every write asked for before it is done.
        case barrier(CheckedContinuation<Void, Never>)
    }

    private let sink: AsyncStream<Write>.Continuation
    private let worker: Task<Void, Never>

    init(store: any BondStore, logger: Logger) {
        let (stream, sink) = AsyncStream.makeStream(of: Write.self)
        self.sink = sink
        worker = Task {
            for await write in stream { await Self.perform(write, on: store, logger: logger) }
        }
    }

    func enqueue(_ write: Write) {
        // After `close` (shutdown) nothing is written any more; a barrier must still return.
        if case .terminated = sink.yield(write), case let .barrier(continuation) = write { continuation.resume() }
    }

    /// Returns once every write asked for so far is done (or failed and was logged).
    func settle() async {
        await withCheckedContinuation { continuation in
            if case .terminated = sink.yield(.barrier(continuation)) { continuation.resume() }
        }
    }

    /// Finishes the writes already asked for; later ones are dropped.
    func close() async {
        sink.finish()
        await worker.value
    }

    private static func perform(_ write: Write, on store: any BondStore, logger: Logger) async {
        do throws(BondStoreError) {
            switch write {
            case let .setCCCD(handle, value, identity):
                try await store.setCCCD(handle: handle, value: value, for: identity)
            case let .save(state, identity):
                try await store.saveGATTState(state, for: identity)
            case let .markChanged(valueHandle, identities):
                try await store.markChangedWhileAway(valueHandle: valueHandle, for: identities)
            case let .barrier(continuation):
                continuation.resume()
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
            case (_, .barrier):
                break
            }
        }
    }
}
