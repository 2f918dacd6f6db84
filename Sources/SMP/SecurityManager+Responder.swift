import BLECore
import Bonding
import HCI
import SecurityToolbox

/// The peripheral role's start of a pairing: a central's Pairing Request, checked against the
/// repeated-attempts wait, the bonds and the agent.
extension SecurityManager {
    func pairingRequest(_ features: PairingFeatures, pdu: [UInt8], on link: Link) {
        guard let identity = state.withLock({ $0.identity }) else {
            transmit(.pairingFailed(.unspecifiedReason), on: link)
            logger.error("\(link.id): pairing refused: the security manager has not started")
            return
        }
        let peer = link.identity.bondIdentity
        let blocked = state.withLock { state -> Bool in
            guard let attempts = state.attempts[peer] else { return false }
            return clock.now < attempts.blockedUntil
        }
        if blocked {
            logger.warning("\(link.id): pairing refused: repeated attempts from \(peer); waiting")
            transmit(.pairingFailed(.repeatedAttempts), on: link)
            return
        }
        let context = PairingContext(initiatorAddress: link.peer, responderAddress: localAddress(link),
                                     policy: configuration.policy, identity: identity, randomBytes: randomBytes,
                                     makeKeyPair: makeKeyPair)
        var session = PairingSession(request: features, pdu: pdu, context: context)
        let actions = session.start()
        let started = state.withLock { state -> (serial: UInt64, replaced: SessionEntry?)? in
            guard state.links[link.id] != nil else { return nil }
            let serial = state.nextSerial
            state.nextSerial += 1
            let old = state.links[link.id]?.session
            state.links[link.id]?.session = SessionEntry(serial: serial, session: session, timer: nil)
            return (serial, old)
        }
        guard let (serial, replaced) = started else { return }
        replaced?.timer?.cancel()
        if let replaced, !replaced.session.isFinished {
            logger.info("\(link.id): a new Pairing Request restarts pairing")
        }
        logger.info("\(link.id): Pairing Request from \(link.peer): \(features.ioCapability), \(features.authentication), key size ≤\(features.maxKeySize)")
        armTimer(on: link, serial: serial)
        perform(actions, on: link, serial: serial)
    }

    /// Policy checks that need the bonds, then the agent's say.
    func approve(_ request: PairingFeatures, on link: Link, serial: UInt64) {
        let session = state.withLock { $0.links[link.id]?.session?.session }
        guard let session else { return }
        let peer = link.identity.bondIdentity
        let (existing, count) = state.withLock { ($0.bonds[peer], $0.bonds.count) }
        let new = EncryptionKeyProperties(keySize: session.keySize, authenticated: session.method.isAuthenticated,
                                          secureConnections: session.secureConnections)
        // Its address (or an RPA replayed from the air) names a bond this link never proved: only an
        // authenticated pairing at least as strong may replace it. Checked again, against the
        // identity it distributes, when the pairing completes.
        if let existing, !isProvenBonded(link), !Self.mayReplace(existing, with: new) {
            logger.warning("\(link.id): \(link.peer) asks to pair as \(peer), which is bonded, without proving that bond (encrypting with its key); \(session.method) cannot replace it. If that central lost its keys, remove the bond first: blesensor bonds remove \(peer.bondArgument)")
            step(on: link, serial: serial) {
                $0.approve(.refuse(.authenticationRequirements, because: "\(peer) is bonded and this link did not prove that bond; \(session.method) cannot replace it"))
            }
            return
        }
        if case .passkeyEntry = session.method, let wait = passkeyPairingWait {
            step(on: link, serial: serial) {
                $0.approve(.refuse(.repeatedAttempts, because: "too many wrong passkeys from any central; passkey pairing waits another \(max(1, wait.wholeMilliseconds / 1000)) s"))
            }
            return
        }
        if let existing, Self.isWeaker(new, than: existing) {
            guard configuration.allowWeakerRepairing else {
                step(on: link, serial: serial) {
                    $0.approve(.refuse(.authenticationRequirements, because: "\(peer) already has a stronger bond and weaker re-pairing is off"))
                }
                return
            }
            logger.warning("\(link.id): \(peer) re-pairs with \(session.method), weaker than its bond; allowed by policy")
        }
        if existing == nil, let maximum = configuration.maximumBonds, count >= maximum, configuration.bondLimitPolicy == .refuseNew,
           session.response.authentication.contains(.bonding) {
            step(on: link, serial: serial) {
                $0.approve(.refuse(.unspecifiedReason, because: "the bond store is full (\(maximum)); remove a bond first"))
            }
            return
        }
        eventSink.yield(.pairingStarted(link, session.method))
        let agent = agent
        Task { [weak self] in
            let decision = await agent.mayPair(link, request: request)
            self?.step(on: link, serial: serial) { $0.approve(decision) }
        }
    }
}
