import BLECore
import Bonding
import Foundation
import HCI
import SecurityToolbox

/// Encryption with the pairing's or the bond's key, and the bonds a pairing stores, replaces or evicts.
extension SecurityManager {
    // MARK: Encryption

    /// The key for an LE Long Term Key Request: the pairing's STK or LTK while pairing, else the bond's.
    public func longTermKey(for link: Link, random: UInt64, ediv: UInt16) -> (key: [UInt8], properties: EncryptionKeyProperties)? {
        state.withLock { state in
            if let session = state.links[link.id]?.session?.session, let key = session.keyForEncryption(random: random, ediv: ediv) {
                return key
            }
            guard let ltk = state.bonds[link.identity.bondIdentity]?.ltk, ltk.ediv == ediv, ltk.rand == random else { return nil }
            state.links[link.id]?.bondKeyOffered = true
            let properties = EncryptionKeyProperties(keySize: ltk.keySize, authenticated: ltk.authenticated,
                                                     secureConnections: ltk.secureConnections)
            return (ltk.key.bytes, properties)
        }
    }

    /// Encryption Change or Key Refresh Complete on a link.
    public func encryptionChanged(on link: Link, status: HCIStatus) {
        state.withLock { state in
            guard state.links[link.id]?.bondKeyOffered == true else { return }
            state.links[link.id]?.bondKeyOffered = false
            if status == .success { state.links[link.id]?.proven = true }
        }
        if encryptionFinished(on: link, status: status) { return }
        if status == .success {
            step(on: link, serial: state.withLock { $0.links[link.id]?.session?.serial } ?? 0) { $0.encrypted() }
        } else {
            // Said before the session's own failure, so `pair` reports the controller's status.
            let pairing = state.withLock { state in state.links[link.id]?.session.map { !$0.session.isFinished && $0.session.isInitiator } } ?? false
            if pairing { resolvePairing(on: link, .failure(.encryptionFailed(status))) }
            step(on: link, serial: state.withLock { $0.links[link.id]?.session?.serial } ?? 0) { $0.encryptionFailed(status) }
        }
    }

    // MARK: Bonds

    func completed(_ result: PairingResult, on link: Link, serial: UInt64) {
        let timer = state.withLock { $0.links[link.id]?.session?.timer }
        timer?.cancel()
        let peer = (result.peerIdentity ?? link.identity).bondIdentity
        logger.info("\(link.id): paired with \(peer) by \(result.method)\(result.secureConnections ? " (LE Secure Connections)" : " (legacy)"), \(result.keySize)-octet key")
        // A central we knew under another identity (its old IRK resolved it) re-paired with a new
        // one: its old bond goes in the same transaction that stores the new.
        let knownBefore = isProvenBonded(link) ? link.identity.bondIdentity : nil
        let storesBond = !result.peerUsedDebugKey && result.bonding && (result.ltk != nil || result.peerLTK != nil)
        // Before the identity is adopted: a peer may name (by its address or the identity it
        // distributes) a bond it never proved, as Zephyr's update_keys_check guards. Checked and
        // reserved in one step, so two links completing at once cannot both pass.
        let claim = state.withLock { state -> IdentityClaim in
            if knownBefore != peer, let existing = state.bonds[peer], !Self.mayReplace(existing, with: result.properties) {
                return .bonded(existing)
            }
            if let saver = state.bondsBeingSaved[peer], saver != link.id { return .beingSaved }
            if storesBond { state.bondsBeingSaved[peer] = link.id }
            return .free
        }
        switch claim {
        case let .bonded(existing):
            refuseTakeover(claimed: peer, because: "which is bonded, without proving that bond (encrypting with its key); "
                           + (result.properties.authenticated ? "a weaker key" : "an unauthenticated key (\(result.method))") + " cannot replace it: bond kept",
                           remedy: " If that central lost its keys, remove the bond first: blesensor bonds remove \(existing.identity.bondArgument)",
                           result, on: link, serial: serial)
            return
        case .beingSaved:
            refuseTakeover(claimed: peer, because: "while another link is bonding under that identity", remedy: "",
                           result, on: link, serial: serial)
            return
        case .free:
            break
        }
        state.withLock { state in
            state.attempts[link.identity.bondIdentity] = nil
            // The right passkey: whoever typed it knows it, the count of guesses starts over.
            if case .passkeyEntry = result.method { state.passkeyGuesses = PasskeyGuesses() }
        }
        if result.peerUsedDebugKey {
            // Encrypted now with a key anyone can compute, not the bond's: no longer its proof.
            state.withLock { $0.links[link.id]?.proven = false }
            logger.warning("\(link.id): \(link.peer) paired with the specification's debug public key: anyone with an air trace can decrypt this link; it is not authenticated and nothing is stored")
            finishPairing(on: link, result, bonded: false)
            return
        }
        if let identity = result.peerIdentity { link.setIdentity(identity) }
        guard storesBond else {
            finishPairing(on: link, result, bonded: false)
            return
        }
        let date = now()
        let bond = Bond(identity: peer, ltk: result.ltk, peerLTK: result.peerLTK, peerIRK: result.peerIRK,
                        peerCSRK: result.peerCSRK, peerSignCounter: nil, localCSRK: result.localCSRK, localSignCounter: 0,
                        createdAt: date, lastSeen: date)
        // A full store gives up its least recently used bond in the same transaction (when so configured).
        let renamed = knownBefore == peer ? nil : knownBefore
        let evicted = renamed == nil ? evictionCandidate(for: peer) : nil
        let replacing = renamed ?? evicted
        let gattState = gattStateProvider.withLock { $0 }?.provide(link) ?? .empty
        // On the ordered queue: a removal or sign-counter update asked for after the pairing finished
        // (a quick `blesensor bonds remove`) always finds the bond stored.
        storeWrites.enqueue { [weak self, store] in
            do throws(BondStoreError) {
                try await store.saveBond(bond, gattState: gattState, replacing: replacing)
                if let evicted {
                    self?.logger.info("bond with \(evicted) removed to make room (least recently used)")
                    self?.eventSink.yield(.bondRemoved(evicted))
                }
                self?.stored(bond, replacing: replacing, on: link, result: result)
            } catch {
                self?.state.withLock { _ = $0.bondsBeingSaved.removeValue(forKey: peer) }
                self?.logger.error("\(link.id): bond with \(peer) not stored: \(error)")
                self?.eventSink.yield(.bondNotStored(link, error))
                self?.finishPairing(on: link, result, bonded: false)
            }
        }
    }

    /// A pairing on a link that did not prove `bond` replaces it only with an authenticated key at
    /// least as strong: else anyone allowed to pair could take over (or wipe) the owner's bond by
    /// naming its identity.
    static func mayReplace(_ bond: Bond, with new: EncryptionKeyProperties) -> Bool {
        guard bond.ltk != nil || bond.peerLTK != nil else { return true }
        return new.authenticated && !isWeaker(new, than: bond)
    }

    /// Whether the identity a completed pairing names is free to bond.
    enum IdentityClaim { case free, bonded(Bond), beingSaved }

    /// The pairing fails and nothing of it is kept: no bond, no adopted identity; the link,
    /// encrypted with a key we did not store, is to be dropped (`bondTakeoverRefused`).
    func refuseTakeover(claimed: DeviceAddress, because: String, remedy: String, _ result: PairingResult, on link: Link, serial: UInt64) {
        logger.warning("\(link.id): \(link.peer) paired as \(claimed), \(because); pairing refused.\(remedy)")
        transmit(.pairingFailed(.authenticationRequirements), on: link)
        recordFailure(of: link)
        eventSink.yield(.bondTakeoverRefused(link, claimed: claimed))
        pairingFailed(on: link, serial: serial, reason: .authenticationRequirements, sent: true,
                      detail: "\(claimed) is bonded and this pairing did not prove that bond")
    }

    static func isWeaker(_ new: EncryptionKeyProperties, than bond: Bond) -> Bool {
        guard let key = bond.ltk ?? bond.peerLTK else { return false }
        let old = EncryptionKeyProperties(keySize: key.keySize, authenticated: key.authenticated, secureConnections: key.secureConnections)
        return new.level < old.level || (new.level == old.level && new.keySize < old.keySize)
    }

    func evictionCandidate(for peer: DeviceAddress) -> DeviceAddress? {
        guard let maximum = configuration.maximumBonds, configuration.bondLimitPolicy == .replaceLeastRecentlyUsed else { return nil }
        return state.withLock { state -> DeviceAddress? in
            guard state.bonds[peer] == nil, state.bonds.count >= maximum else { return nil }
            let connected = Set(state.links.values.map { $0.link.identity.bondIdentity })
            return state.bonds.values.filter { !connected.contains($0.identity) }.min { $0.lastSeen < $1.lastSeen }?.identity
        }
    }

    func stored(_ bond: Bond, replacing: DeviceAddress?, on link: Link, result: PairingResult) {
        state.withLock { state in
            if let replacing { state.bonds[replacing] = nil }
            state.bonds[bond.identity] = bond
            state.bondsBeingSaved[bond.identity] = nil
            // Encrypted with the key it just got: this link is the bonded central.
            state.links[link.id]?.proven = true
        }
        link.setBonded(true)
        logger.info("\(link.id): bond with \(bond.identity) stored")
        finishPairing(on: link, result, bonded: true)
    }

    func finishPairing(on link: Link, _ result: PairingResult, bonded: Bool) {
        eventSink.yield(.paired(link, result, bonded: bonded))
        resolvePairing(on: link, .success(result))
    }

    /// Forgets a bond (its keys, GATT state and stored measurements); false when there was none.
    public func removeBond(_ identity: DeviceAddress) async throws(BondStoreError) -> Bool {
        let key = identity.bondIdentity
        // A pairing that completed before this call has its bond saved first.
        await storeWrites.settle()
        let removed = try await store.removeBond(key)
        state.withLock { _ = $0.bonds.removeValue(forKey: key) }
        for link in state.withLock({ $0.links.values.map(\.link) }) where link.identity.bondIdentity == key { link.setBonded(false) }
        if removed { eventSink.yield(.bondRemoved(key)) }
        return removed
    }

    // MARK: Signed writes

    /// Whether a Signed Write Command (the whole PDU) carries a valid signature of the bonded
    /// client's CSRK with a sign counter above the last one accepted; a replay is refused.
    public func verifySignedWrite(_ pdu: [UInt8], on link: Link) -> Bool {
        let key = link.identity.bondIdentity
        guard let csrk = state.withLock({ $0.bonds[key]?.peerCSRK }),
              let counter = SecurityFunctions.verifiedSignCounter(csrk: csrk.bytes, signed: pdu) else { return false }
        let accepted = state.withLock { state -> Bool in
            guard var bond = state.bonds[key] else { return false }
            if let last = bond.peerSignCounter, counter <= last { return false }
            bond.peerSignCounter = counter
            state.bonds[key] = bond
            // Queued under the lock: the store sees the counters in the order they were accepted.
            let store = store, logger = logger
            storeWrites.enqueue {
                do { try await store.updatePeerSignCounter(counter, for: key) } catch {
                    logger.error("sign counter of \(key) not stored: \(error); a restart could accept a replayed signed write")
                }
            }
            return true
        }
        return accepted
    }
}

extension DeviceAddress {
    /// The arguments of `blesensor bonds remove` for this identity, ready to paste into a shell.
    var bondArgument: String { "\(address) --type \(type.isRandom ? "random" : "public")" }
}
