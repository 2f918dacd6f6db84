import BLECore
import Bonding
import HCI
import SecurityToolbox

/// The central role: pairing as initiator, re-encryption from bonds, Security Requests.
extension SecurityManager {
    public typealias StartEncryption = @Sendable (_ link: Link, _ key: [UInt8], _ random: UInt64, _ ediv: UInt16,
                                                  _ properties: EncryptionKeyProperties) -> Void

    typealias PairWaiter = CheckedContinuation<Result<PairingResult, SecurityError>, Never>

    /// One encryption from the bond in flight on a link, and every call waiting for it.
    struct EncryptionWaiter {
        var identity: DeviceAddress
        var properties: EncryptionKeyProperties
        var continuations: [CheckedContinuation<Result<LinkSecurity, SecurityError>, Never>]
    }

    /// How a call found the link: first to ask, joining what is under way, or unable to.
    enum Registration { case started(UInt64), joined, busy, closed }

    // MARK: Pairing as initiator

    /// Pairs as initiator on a central link; returns when pairing, encryption and key distribution
    /// completed (and a bond was stored, or failed to be: see `SecurityEvent.bondNotStored`).
    /// A call while this link is already pairing as initiator waits for that pairing.
    public func pair(_ link: Link) async throws(SecurityError) -> PairingResult {
        guard link.role == .central else { throw .notCentral(link.id) }
        guard startEncryption != nil else { throw .encryptionUnavailable }
        guard let identity = localIdentity else { throw .notStarted }
        guard link.isOpen else { throw .linkClosed }
        guard state.withLock({ $0.links[link.id]?.smpTimedOut }) != true else { throw .timeout }
        let context = PairingContext(initiatorAddress: localAddress(link), responderAddress: link.peer,
                                     policy: configuration.policy, identity: identity, randomBytes: randomBytes,
                                     makeKeyPair: makeKeyPair)
        let outcome = await withCheckedContinuation { (continuation: PairWaiter) in
            let registration = state.withLock { state -> Registration in
                // Checked with the registration: a link that closed in between was swept already.
                guard var perLink = state.links[link.id] else { return .closed }
                if let entry = perLink.session, !entry.session.isFinished {
                    guard entry.session.isInitiator else { return .busy }
                    state.links[link.id]?.pairWaiters.append(continuation)
                    return .joined
                }
                let serial = state.nextSerial
                state.nextSerial += 1
                perLink.session = SessionEntry(serial: serial, session: PairingSession(initiating: context), timer: nil)
                perLink.pairWaiters.append(continuation)
                state.links[link.id] = perLink
                return .started(serial)
            }
            let serial: UInt64
            switch registration {
            case .joined: return
            case .busy: return continuation.resume(returning: .failure(.busy(link.id)))
            case .closed: return continuation.resume(returning: .failure(.linkClosed))
            case let .started(started): serial = started
            }
            logger.info("\(link.id): pairing with \(link.peer) as central")
            armTimer(on: link, serial: serial)
            step(on: link, serial: serial) { $0.begin() }
        }
        return try outcome.get()
    }

    /// Ends what waits for this link's pairing.
    func resolvePairing(on link: Link, _ outcome: Result<PairingResult, SecurityError>) {
        let waiters = state.withLock { state -> [PairWaiter] in
            defer { state.links[link.id]?.pairWaiters = [] }
            return state.links[link.id]?.pairWaiters ?? []
        }
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
            let registration = state.withLock { state -> Registration in
                guard let perLink = state.links[link.id] else { return .closed }
                // A second call (the application's beside one a Security Request started) waits for
                // the encryption under way instead of failing.
                if perLink.encryptWaiter != nil {
                    state.links[link.id]?.encryptWaiter?.continuations.append(continuation)
                    return .joined
                }
                if perLink.session.map({ !$0.session.isFinished }) == true { return .busy }
                state.links[link.id]?.encryptWaiter = EncryptionWaiter(identity: identity, properties: properties, continuations: [continuation])
                return .started(0)
            }
            switch registration {
            case .joined: return
            case .busy: return continuation.resume(returning: .failure(.busy(link.id)))
            case .closed: return continuation.resume(returning: .failure(.linkClosed))
            case .started: break
            }
            logger.info("\(link.id): encrypting with the bond's key for \(identity)")
            start(link, key.key.bytes, key.rand, key.ediv, properties)
        }
        return try outcome.get()
    }

    /// The Encryption Change of an `encrypt` (true when there was one waiting).
    func encryptionFinished(on link: Link, status: HCIStatus) -> Bool {
        guard let waiter = takeEncryptWaiter(on: link) else { return false }
        let outcome: Result<LinkSecurity, SecurityError>
        if status == .success {
            state.withLock { $0.links[link.id]?.proven = true }
            link.setBonded(true)
            outcome = .success(LinkSecurity(level: waiter.properties.level, keySize: waiter.properties.keySize))
        } else if status == .pinOrKeyMissing {
            logger.warning("\(link.id): \(waiter.identity) has no key for our bond (PIN or Key Missing); bond kept")
            outcome = .failure(.keyMissing(waiter.identity))
        } else {
            outcome = .failure(.encryptionFailed(status))
        }
        waiter.continuations.forEach { $0.resume(returning: outcome) }
        return true
    }

    private func takeEncryptWaiter(on link: Link) -> EncryptionWaiter? {
        state.withLock { state in
            defer { state.links[link.id]?.encryptWaiter = nil }
            return state.links[link.id]?.encryptWaiter
        }
    }

    // MARK: Security Request

    /// A peripheral asks for security (3.6.7): reported, then handled as the configuration says.
    func securityRequested(_ requirements: AuthenticationRequirements, on link: Link) {
        eventSink.yield(.securityRequested(link, requirements))
        let response = configuration.respondToSecurityRequests
        guard response != .ignore else { return }
        let busy = state.withLock { state in
            state.links[link.id].map { $0.encryptWaiter != nil || $0.session.map { !$0.session.isFinished } == true } ?? false
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
