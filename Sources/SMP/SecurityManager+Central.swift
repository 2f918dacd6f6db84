import BLECore
import Bonding
import HCI
import SecurityToolbox

/// The central role: pairing as initiator, re-encryption from bonds, Security Requests.
extension SecurityManager {
    public typealias StartEncryption = @Sendable (_ link: Link, _ key: [UInt8], _ random: UInt64, _ ediv: UInt16,
                                                  _ properties: EncryptionKeyProperties) -> Void

    typealias PairWaiter = CheckedContinuation<Result<PairingResult, SecurityError>, Never>

    struct EncryptionWaiter {
        var identity: DeviceAddress
        var properties: EncryptionKeyProperties
        var continuation: CheckedContinuation<Result<LinkSecurity, SecurityError>, Never>
    }

    // MARK: Pairing as initiator

    /// Pairs as initiator on a central link; returns when pairing, encryption and key distribution
    /// completed (and a bond was stored, or failed to be: see `SecurityEvent.bondNotStored`).
    /// A call while this link is already pairing as initiator waits for that pairing.
    public func pair(_ link: Link) async throws(SecurityError) -> PairingResult {
        guard link.role == .central else { throw .notCentral(link.id) }
        guard startEncryption != nil else { throw .encryptionUnavailable }
        guard let identity = localIdentity else { throw .notStarted }
        guard link.isOpen else { throw .linkClosed }
        guard !state.withLock({ $0.deadLinks.contains(link.id) }) else { throw .timeout }
        let context = PairingContext(initiatorAddress: localAddress(link), responderAddress: link.peer,
                                     policy: configuration.policy, identity: identity, randomBytes: randomBytes,
                                     makeKeyPair: makeKeyPair)
        let outcome = await withCheckedContinuation { (continuation: PairWaiter) in
            let started = state.withLock { state -> UInt64? in
                if let entry = state.sessions[link.id], !entry.session.isFinished {
                    guard entry.session.isInitiator else { return 0 }
                    state.pairWaiters[link.id, default: []].append(continuation)
                    return nil
                }
                let serial = state.nextSerial
                state.nextSerial += 1
                state.sessions[link.id] = SessionEntry(serial: serial, session: PairingSession(initiating: context), timer: nil)
                state.pairWaiters[link.id, default: []].append(continuation)
                return serial
            }
            guard let serial = started else { return }
            guard serial != 0 else { return continuation.resume(returning: .failure(.busy(link.id))) }
            logger.info("\(link.id): pairing with \(link.peer) as central")
            armTimer(on: link, serial: serial)
            step(on: link, serial: serial) { $0.begin() }
        }
        return try outcome.get()
    }

    /// Ends what waits for this link's pairing.
    func resolvePairing(on link: Link, _ outcome: Result<PairingResult, SecurityError>) {
        let waiters = state.withLock { $0.pairWaiters.removeValue(forKey: link.id) } ?? []
        for waiter in waiters { waiter.resume(returning: outcome) }
    }

    // MARK: Encryption from a bond

    /// Encrypts a central link with the bond's key: the LE Secure Connections LTK (EDIV and Rand
    /// zero) or the legacy LTK the peripheral distributed. The bond is not removed when the peer
    /// has lost it (`.keyMissing`): the user decides.
    public func encrypt(_ link: Link) async throws(SecurityError) -> LinkSecurity {
        guard link.role == .central else { throw .notCentral(link.id) }
        guard let start = startEncryption else { throw .encryptionUnavailable }
        let identity = link.identity.bondIdentity
        guard let bond = state.withLock({ $0.bonds[identity] }) else { throw .notBonded(identity) }
        guard let key = bond.keyAsCentral else { throw .noCentralKey(identity) }
        let properties = EncryptionKeyProperties(keySize: key.keySize, authenticated: key.authenticated,
                                                 secureConnections: key.secureConnections)
        let outcome = await withCheckedContinuation { continuation in
            let registered = state.withLock { state -> Bool in
                let pairing = state.sessions[link.id].map { !$0.session.isFinished } ?? false
                guard state.encryptWaiters[link.id] == nil, !pairing else { return false }
                state.encryptWaiters[link.id] = EncryptionWaiter(identity: identity, properties: properties, continuation: continuation)
                return true
            }
            guard registered else { return continuation.resume(returning: .failure(.busy(link.id))) }
            logger.info("\(link.id): encrypting with the bond's key for \(identity)")
            start(link, key.key.bytes, key.rand, key.ediv, properties)
        }
        return try outcome.get()
    }

    /// The Encryption Change of an `encrypt` (true when there was one waiting).
    func encryptionFinished(on link: Link, status: HCIStatus) -> Bool {
        guard let waiter = state.withLock({ $0.encryptWaiters.removeValue(forKey: link.id) }) else { return false }
        if status == .success {
            state.withLock { _ = $0.proven.insert(link.id) }
            link.setBonded(true)
            waiter.continuation.resume(returning: .success(LinkSecurity(level: waiter.properties.level, keySize: waiter.properties.keySize)))
        } else if status == .pinOrKeyMissing {
            logger.warning("\(link.id): \(waiter.identity) has no key for our bond (PIN or Key Missing); bond kept")
            waiter.continuation.resume(returning: .failure(.keyMissing(waiter.identity)))
        } else {
            waiter.continuation.resume(returning: .failure(.encryptionFailed(status)))
        }
        return true
    }

    func resolveEncryption(on link: Link, _ error: SecurityError) {
        state.withLock { $0.encryptWaiters.removeValue(forKey: link.id) }?.continuation.resume(returning: .failure(error))
    }

    // MARK: Security Request

    /// A peripheral asks for security (3.6.7): reported, then handled as the configuration says.
    func securityRequested(_ requirements: AuthenticationRequirements, on link: Link) {
        eventSink.yield(.securityRequested(link, requirements))
        let response = configuration.respondToSecurityRequests
        guard response != .ignore else { return }
        let busy = state.withLock { state in
            state.encryptWaiters[link.id] != nil || state.sessions[link.id].map { !$0.session.isFinished } == true
        }
        // A request during a pairing or an encryption is already being met.
        guard !busy else { return }
        let key = bond(for: link.identity)?.keyAsCentral
        let sufficient = key.map { !requirements.contains(.mitm) || $0.authenticated } ?? false
        let logger = logger
        if sufficient || (key != nil && response == .encryptIfBonded) {
            Task { [weak self] in
                do throws(SecurityError) { _ = try await self?.encrypt(link) } catch {
                    logger.warning("\(link.id): encryption after a Security Request failed: \(error)")
                }
            }
        } else if response == .encryptOrPair {
            Task { [weak self] in
                do throws(SecurityError) { _ = try await self?.pair(link) } catch {
                    logger.warning("\(link.id): pairing after a Security Request failed: \(error)")
                }
            }
        }
    }
}
