import BLECore
import Bonding
import Foundation
import GATT
import HCI
import Logging
import Peripheral
import SensorBridge
import Synchronization

/// Store-and-forward for Health Thermometer (HTS 3.1, "stored measurements"): a Temperature
/// Measurement taken while a bonded central that enabled its indications is away is kept in the
/// bond store (bounded per central, oldest dropped first and counted), and indicated in order when
/// the central is back and subscribed again; each is removed from the store only once the central
/// confirmed it, so nothing is lost to a disconnection, a daemon restart or a kill -9.
///
/// The bridge's 2A1C updates pass through `updateValue`: they go live to the subscribed centrals
/// and into the store for the absent and still-draining ones, so a returning central gets its
/// backlog and then the live values, in the order they were taken. Store writes go through one
/// ordered queue (`writes`); waiting for confirmations never holds it.
final class MeasurementForwarder: UpdateSink, Sendable {
    /// One drain of one link; a newer drain of the same link (indications off and on again)
    /// makes the older one stop, so two never send the same rows or take each other's confirmations.
    struct Drain: Equatable, Sendable {
        let identity: DeviceAddress
        let generation: UInt64
    }

    struct State {
        var away: Set<DeviceAddress> = []
        /// Subscribed centrals that get values as they come; `identity` when it proved its bond.
        var live: [LinkID: (central: ConnectedCentral, identity: DeviceAddress?)] = [:]
        var draining: [LinkID: Drain] = [:]
        var confirmations: [LinkID: CheckedContinuation<Bool, Never>] = [:]
        var nextGeneration: UInt64 = 1
        var valueHandle: UInt16 = 0
        /// Measurements queued for the store and not yet written.
        var queuedWrites = 0
        /// Measurements not kept (store failures, a full queue) since the last line about them.
        var unkept = 0
        var lastUnkeptReport: ContinuousClock.Instant?
    }

    let measurement = SensorBridge.temperatureMeasurement
    private let manager: PeripheralManager
    /// Both sides: the bonds say who is away and subscribed, the measurement queue holds their backlog.
    private let store: any BondStore & MeasurementStore
    private let limit: Int
    private let logger: Logger
    /// Where `status` finds a failing store-and-forward write.
    private let health: BondStoreHealth?
    private let state = Mutex(State())
    private let writes = OrderedStoreWork()
    /// A store slower than the sensor (a dying SD card) must not grow the queue without bound.
    static let maximumQueuedWrites = 256
    /// A failing store is reported at most this often, with the count of what was lost meanwhile.
    static let unkeptReportInterval = Duration.seconds(60)

    init(manager: PeripheralManager, store: any BondStore & MeasurementStore, limit: Int, health: BondStoreHealth? = nil, logger: Logger) {
        self.manager = manager
        self.health = health
        self.store = store
        self.limit = limit
        self.logger = logger
    }

    var isEnabled: Bool { limit > 0 }

    /// Loads which bonded centrals subscribed to 2A1C indications (their CCCDs are in the store).
    func start() async {
        guard isEnabled, let database = await manager.database,
              let characteristic = database.characteristic(id: measurement), let cccd = characteristic.cccdHandle else { return }
        state.withLock { $0.valueHandle = characteristic.valueHandle }
        do {
            var away: Set<DeviceAddress> = []
            for bond in try await store.bonds() {
                let gatt = try await store.gattState(for: bond.identity)
                let subscribed = (gatt?.cccds[cccd] ?? 0) & ClientConfiguration.indications.rawValue != 0
                let pending = try await store.pendingMeasurements(for: bond.identity).measurements.isEmpty == false
                if subscribed || pending { away.insert(bond.identity) }
            }
            let count = away.count
            state.withLock { $0.away.formUnion(away) }
            if count > 0 { logger.info("store-and-forward: \(count) bonded central(s) get Temperature Measurements kept while away") }
        } catch {
            logger.error("store-and-forward: bonds not read (\(error)); measurements for absent centrals are not kept this run")
        }
    }

    /// The value handle of 2A1C in the published database (0 before `start`).
    var valueHandle: UInt16 { state.withLock { $0.valueHandle } }

    /// Ends the writer after the writes already queued (they are on their way to the store).
    func stop() async {
        releaseWaiters()
        await writes.close()
    }

    // MARK: The bridge's updates

    func updateValue(_ value: [UInt8], for characteristic: CharacteristicID) -> Bool {
        guard isEnabled, characteristic == measurement else { return manager.updateValue(value, for: characteristic) }
        let taken = Date()
        let live = state.withLock { state -> [ConnectedCentral] in
            // Queued under the lock: a drain that ends (and turns its central live) is ordered
            // before or after this value, never between the decision and the write.
            let keepFor = Array(state.away) + state.draining.values.map(\.identity)
            if !keepFor.isEmpty {
                if state.queuedWrites < Self.maximumQueuedWrites {
                    state.queuedWrites += 1
                    writes.enqueue { [weak self] in await self?.keep(value, takenAt: taken, for: keepFor) }
                } else {
                    state.unkept += keepFor.count
                    health?.storeAndForwardFailed(lost: keepFor.count, because: "the store does not keep up: \(Self.maximumQueuedWrites) writes queued")
                }
            }
            return state.live.values.map(\.central)
        }
        guard !live.isEmpty else { return true }
        return manager.updateValue(value, for: characteristic, onSubscribedCentrals: live)
    }

    func batching(_ body: () -> Void) { manager.batchingUpdates(body) }

    // MARK: Peripheral events

    func subscribed(_ central: ConnectedCentral, _ characteristic: CharacteristicID) {
        guard isEnabled, characteristic == measurement else { return }
        let link = central.link
        // Only a link encrypted with its bond's key is the bonded central; anyone can claim its address.
        guard manager.security?.isProvenBonded(link) == true else {
            state.withLock { $0.live[link.id] = (central, nil) }
            return
        }
        let identity = link.identity.bondIdentity
        let (drain, superseded) = state.withLock { state -> (Drain, CheckedContinuation<Bool, Never>?) in
            let drain = Drain(identity: identity, generation: state.nextGeneration)
            state.nextGeneration += 1
            state.away.remove(identity)
            state.live[link.id] = nil
            state.draining[link.id] = drain
            return (drain, state.confirmations.removeValue(forKey: link.id))
        }
        superseded?.resume(returning: false)
        Task { await self.drain(to: central, drain) }
    }

    func unsubscribed(_ central: ConnectedCentral, _ characteristic: CharacteristicID) {
        guard isEnabled, characteristic == measurement else { return }
        // Indications turned off: nothing is kept for it any more.
        let waiter = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            state.live[central.link.id] = nil
            state.draining[central.link.id] = nil
            return state.confirmations.removeValue(forKey: central.link.id)
        }
        waiter?.resume(returning: false)
    }

    func disconnected(_ central: ConnectedCentral) {
        guard isEnabled else { return }
        let link = central.link
        let waiter = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            // A bonded central that proved itself and was subscribed is away from now on.
            let live = state.live.removeValue(forKey: link.id)?.identity
            let draining = state.draining.removeValue(forKey: link.id)?.identity
            if let identity = live ?? draining { state.away.insert(identity) }
            return state.confirmations.removeValue(forKey: link.id)
        }
        waiter?.resume(returning: false)
    }

    /// The central bonded on this connection (it may have subscribed before pairing).
    func bonded(_ central: ConnectedCentral) {
        guard isEnabled, manager.security?.isProvenBonded(central.link) == true else { return }
        let identity = central.link.identity.bondIdentity
        state.withLock { state in
            guard let entry = state.live[central.link.id] else { return }
            state.live[central.link.id] = (entry.central, identity)
        }
    }

    /// A bond went (removed, or replaced by another): nothing more is kept for it.
    func forget(_ identity: DeviceAddress) {
        _ = state.withLock { $0.away.remove(identity) }
    }

    func confirmed(_ central: ConnectedCentral, _ characteristic: CharacteristicID) {
        guard characteristic == measurement else { return }
        let waiter = state.withLock { $0.confirmations.removeValue(forKey: central.link.id) }
        waiter?.resume(returning: true)
    }

    // MARK: Draining

    private func isCurrent(_ drain: Drain, on link: Link) -> Bool {
        state.withLock { $0.draining[link.id] == drain }
    }

    /// Indicates the central's stored measurements one by one, each removed once confirmed.
    private func drain(to central: ConnectedCentral, _ drain: Drain) async {
        let link = central.link, identity = drain.identity
        var sent = 0
        while isCurrent(drain, on: link) {
            let pending: PendingMeasurements
            do { pending = try await store.pendingMeasurements(for: identity) } catch {
                logger.error("store-and-forward: measurements for \(identity) not read: \(error)")
                return
            }
            if pending.dropped > 0 {
                logger.warning("store-and-forward: \(pending.dropped) measurement(s) for \(identity) were dropped while it was away (more than \(limit) kept)")
            }
            guard !pending.measurements.isEmpty else {
                // Through the writer: every measurement queued before this point is in the store.
                state.withLock { state in
                    if state.draining[link.id] == drain { writes.enqueue { [weak self] in await self?.finishDrain(central, drain) } }
                }
                return
            }
            for stored in pending.measurements {
                guard await indicate(stored.value, to: central, drain) else { return }
                do { try await store.acknowledgeMeasurements(through: stored.sequence, for: identity) } catch {
                    logger.error("store-and-forward: confirmation for \(identity) not recorded: \(error); it may get the measurement again")
                }
                sent += 1
            }
            logger.info("store-and-forward: \(sent) stored measurement(s) indicated to \(identity)")
        }
    }

    /// Sends one indication to `central` and waits for its confirmation; false when the central left,
    /// turned indications off or a newer drain took over.
    private func indicate(_ value: [UInt8], to central: ConnectedCentral, _ drain: Drain) async -> Bool {
        let link = central.link
        return await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let (registered, superseded) = state.withLock { state -> (Bool, CheckedContinuation<Bool, Never>?) in
                guard state.draining[link.id] == drain else { return (false, nil) }
                let old = state.confirmations.updateValue(continuation, forKey: link.id)
                return (true, old)
            }
            superseded?.resume(returning: false)
            guard registered else { return continuation.resume(returning: false) }
            let manager = manager, id = measurement
            Task {
                do { try await manager.updateValueWaitingForRoom(value, for: id, onSubscribedCentrals: [central]) } catch {}
            }
        }
    }

    /// Stores one measurement for every central that is away, in one write (run in order by `writes`).
    private func keep(_ value: [UInt8], takenAt: Date, for identities: [DeviceAddress]) async {
        let handle = valueHandle
        var failure: String? = nil
        do {
            // Removed or replaced since: stop keeping measurements for them.
            for identity in try await store.enqueueMeasurement(valueHandle: handle, value: value, takenAt: takenAt,
                                                                for: identities, limit: limit) {
                forget(identity)
            }
        } catch {
            failure = "\(error)"
        }
        if let failure { health?.storeAndForwardFailed(lost: identities.count, because: failure) } else { health?.storeAndForwardWorks() }
        state.withLock { $0.queuedWrites -= 1 }
        // Also after a write that worked: measurements a full queue turned away are reported here.
        unkept(failure == nil ? 0 : identities.count, because: failure)
    }

    /// Counts measurements not kept, and says so at most once per `unkeptReportInterval`: a full
    /// disk fails every write, and one line a minute says as much as one a second.
    private func unkept(_ count: Int, because error: String?) {
        let now = ContinuousClock.now
        let report = state.withLock { state -> (Int, Bool)? in
            state.unkept += count
            guard state.unkept > 0 else { return nil }
            if let last = state.lastUnkeptReport, now - last < Self.unkeptReportInterval { return nil }
            defer { state.unkept = 0; state.lastUnkeptReport = now }
            return (state.unkept, state.queuedWrites >= Self.maximumQueuedWrites)
        }
        guard let (lost, queueFull) = report else { return }
        let why = error ?? (queueFull ? "the store does not keep up (\(Self.maximumQueuedWrites) writes queued)" : "earlier store failures")
        logger.error("store-and-forward: \(lost) measurement(s) for absent centrals not kept: \(why); at most one such line a minute")
    }

    /// Called by the writer in order: ends the drain when nothing arrived meanwhile, else drains on.
    private func finishDrain(_ central: ConnectedCentral, _ drain: Drain) async {
        let empty = (try? await store.pendingMeasurements(for: drain.identity).measurements.isEmpty) ?? true
        if empty {
            state.withLock { state in
                guard state.draining[central.link.id] == drain else { return }
                state.draining[central.link.id] = nil
                state.live[central.link.id] = (central, drain.identity)
            }
        } else if isCurrent(drain, on: central.link) {
            Task { await self.drain(to: central, drain) }
        }
    }

    /// Wakes drains still waiting for a confirmation (shutdown).
    private func releaseWaiters() {
        let waiters = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
            state.draining = [:]
            defer { state.confirmations = [:] }
            return Array(state.confirmations.values)
        }
        waiters.forEach { $0.resume(returning: false) }
    }
}
