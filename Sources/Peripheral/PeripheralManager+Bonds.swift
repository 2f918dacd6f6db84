import BLECore
import Bonding
import GATT
import GATTNotify
import GATTServer
import HCI
import SMP

// Keeps bonded centrals' GATT state across connections and restarts (Core Vol 3 Part G 3.3.3.3,
// 2.5.2.1): the glue between the GATT server, which only snapshots and restores a link's state,
// and the bonds, which the server knows nothing about.
//
// When: a bonded central's state is restored once its link is encrypted (GAP's Encryption Change,
// the same event the Security Manager acts on): encryption with the bond's key is what proves the
// central is the one that bonded, and it is what protected characteristics require, so a
// subscription to a protected value can never be restored onto an unencrypted link.
extension PeripheralManager {
    /// Returns once every bond store write asked for so far is done (or failed and was logged).
    public nonisolated func waitForBondStoreWrites() async {
        await bondedClients?.writer.settle()
    }

    /// Reads the stored GATT state of every bond into memory.
    func loadBondedStates(_ security: SecurityManager, store: any BondStore) async {
        guard let bondedClients else { return }
        var loaded: [DeviceAddress: PeerGATTState] = [:]
        for bond in security.bonds {
            do throws(BondStoreError) {
                if let state = try await store.gattState(for: bond.identity) { loaded[bond.identity] = state }
            } catch {
                logger.error("bond store: the GATT state of bonded central \(bond.identity) could not be read: \(error); its subscriptions are not restored until it subscribes again")
            }
        }
        bondedClients.load(loaded)
        refreshAwayRoutes()
    }

    /// The link's state as the store keeps it: CCCDs by handle in the database served now.
    nonisolated func gattSnapshot(of link: Link) -> PeerGATTState? {
        guard let server = published.withLock({ $0?.server }), let client = server.clientState(of: link) else { return nil }
        let database = server.database
        var cccds: [UInt16: UInt16] = [:]
        for (id, configuration) in client.configurations {
            if let handle = database.cccdHandle(for: id) { cccds[handle] = configuration.rawValue }
        }
        return PeerGATTState(cccds: cccds, clientSupportedFeatures: client.clientSupportedFeatures, changeAware: client.changeAware,
                             databaseHash: database.databaseHash)
    }

    /// A CCCD, Client Supported Features or change-awareness changed on a link.
    nonisolated func clientStateChanged(_ link: Link, _ change: PeripheralServerDelegate.ClientStateChange) {
        guard let bondedClients, bondedClients.liveIdentity(of: link.id) != nil else { return }
        switch change {
        case let .subscription(id, configuration):
            guard let handle = published.withLock({ $0?.server.database })?.cccdHandle(for: id) else { return }
            bondedClients.subscriptionWritten(link.id, cccdHandle: handle, value: configuration.rawValue)
        case .features:
            if let snapshot = gattSnapshot(of: link) { bondedClients.saveLive(link.id, snapshot) }
        }
    }

    /// Pairing stored a bond: the link's state (saved with the bond) stays live from now on. A fresh
    /// snapshot, since the central may have written CCCDs while the bond was being stored.
    nonisolated func bondEstablished(on link: Link) {
        guard let bondedClients, link.isOpen, let snapshot = gattSnapshot(of: link) else { return }
        bondedClients.bonded(link.id, identity: link.identity, current: snapshot)
        refreshAwayRoutes()
    }

    nonisolated func bondRemoved(_ identity: DeviceAddress) {
        bondedClients?.bondRemoved(identity)
        refreshAwayRoutes()
    }

    /// Tells the update path which away centrals to flag, from what the store has.
    nonisolated func refreshAwayRoutes() {
        guard let bondedClients, let database = published.withLock({ $0?.server.database }) else { return }
        subscribers.setAway(bondedClients.awayRoutes(in: database))
    }

    /// A link was encrypted: if it was with its bond's key (a re-pairing's new key proves nothing
    /// about the old bond), the bonded central's stored state becomes live on it.
    nonisolated func restoreBondedState(of link: Link) {
        guard let bondedClients, security?.isProvenBonded(link) == true, link.security.isEncrypted, link.isOpen, connectedCentrals.central(on: link.id) != nil,
              let current = published.withLock({ $0 }) else { return }
        let identity = link.identity.bondIdentity
        guard let stored = bondedClients.beginRestore(link.id, identity: identity) else { return }
        let database = current.server.database
        let plan = RestorePlan(stored: stored, database: database)
        if !plan.handlesValid {
            logger.info("\(link.id): the database changed since bonded central \(identity) was last connected; its subscriptions are dropped\(plan.serviceChanged ? " and Service Changed is indicated" : "") (Core Vol 3 Part G 2.5.2.1, 7.1)")
        }
        guard let restored = current.server.restoreClientState(plan.clientState, on: link) else {
            _ = bondedClients.linkClosed(link.id)
            return
        }
        // Routed now (the server reported them as subscriptions): stop flagging, then send what was missed.
        refreshAwayRoutes()
        if !link.isOpen {
            subscribers.remove(link.id)
            _ = bondedClients.linkClosed(link.id)
            return
        }
        if plan.handlesValid { sendChangedWhileAway(bondedClients.storedState(of: identity)?.changedWhileAway ?? [], to: link, in: current) }
        if plan.serviceChanged { indicateWholeDatabaseChanged(to: link, in: current) }
        if let snapshot = gattSnapshot(of: link) { bondedClients.saveLive(link.id, snapshot) }
        logger.info("\(link.id): GATT state of bonded central \(identity) restored: \(restored.count) subscription(s)")
    }

    /// The current value of each characteristic that changed while the central was away, as its
    /// CCCD asks (a value not updated since this process started has nothing to send).
    private nonisolated func sendChangedWhileAway(_ valueHandles: Set<UInt16>, to link: Link, in current: Published) {
        for valueHandle in valueHandles.sorted() {
            guard let characteristic = current.server.database.characteristic(forValueHandle: valueHandle),
                  let value = subscribers.lastValue(of: characteristic.id),
                  let targets = subscribers.targets(of: characteristic.id) else { continue }
            let indicate = targets.indicate.contains(link.id), notify = targets.notify.contains(link.id)
            guard indicate || notify else { continue }
            send(value, characteristic: valueHandle, policy: targets.policy, to: link.id, indicate: indicate, in: current)
        }
    }

    /// Service Changed over the whole range, for a central whose stored handles no longer hold.
    private nonisolated func indicateWholeDatabaseChanged(to link: Link, in current: Published) {
        guard let handle = current.server.database.valueHandle(for: .serviceChanged) else { return }
        send(ServiceChangedRange.value(for: 0x0001...0xFFFF), characteristic: handle, policy: .indication, to: link.id,
             indicate: true, in: current)
    }

    /// One value to one link; an indication that finds the queue full waits for room rather than being lost.
    private nonisolated func send(_ value: [UInt8], characteristic: UInt16, policy: UpdatePolicy, to link: LinkID, indicate: Bool,
                                  in current: Published) {
        let engine = current.engine
        if indicate {
            guard !engine.update(value, characteristic: characteristic, notifying: [], indicating: [link]) else { return }
            Task { try? await engine.updateWaitingForRoom(value, characteristic: characteristic, indicating: [link]) }
        } else {
            // A notification that finds no room is dropped, as any notification may be.
            _ = engine.update(value, characteristic: characteristic, notifying: [link], policy: policy, indicating: [])
        }
    }
}

/// How a stored state maps onto the database served now.
struct RestorePlan {
    let clientState: GATTClientState
    /// The stored handles refer to this database.
    let handlesValid: Bool
    /// The handles do not hold and the central had enabled Service Changed indications.
    let serviceChanged: Bool

    init(stored: PeerGATTState, database: AttributeDatabase) {
        let features = stored.clientSupportedFeatures.isEmpty ? [0x00] : stored.clientSupportedFeatures
        if stored.databaseHash == database.databaseHash {
            var configurations: [CharacteristicID: ClientConfiguration] = [:]
            for characteristic in database.characteristics {
                if let cccd = characteristic.cccdHandle, let raw = stored.cccds[cccd], raw != 0 {
                    configurations[characteristic.id] = ClientConfiguration(rawValue: raw)
                }
            }
            clientState = GATTClientState(configurations: configurations, clientSupportedFeatures: features, changeAware: stored.changeAware)
            handlesValid = true
            serviceChanged = false
            return
        }
        // Other handles (services changed between runs): nothing maps but Service Changed, whose
        // handle may not change for a bonded client (Core Vol 3 Part G 7.1); the client is
        // change-unaware until it rediscovers (2.5.2.1).
        handlesValid = stored.cccds.isEmpty
        var configurations: [CharacteristicID: ClientConfiguration] = [:]
        if let cccd = database.characteristic(id: .serviceChanged)?.cccdHandle, let raw = stored.cccds[cccd],
           raw & ClientConfiguration.indications.rawValue != 0 {
            configurations[.serviceChanged] = .indications
        }
        serviceChanged = !handlesValid && !configurations.isEmpty
        clientState = GATTClientState(configurations: configurations, clientSupportedFeatures: features,
                                      changeAware: handlesValid ? stored.changeAware : false)
    }
}
