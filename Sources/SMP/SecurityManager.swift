import BLECore
import Bonding
import Foundation
import HCI
import Logging
import SecurityToolbox
import Synchronization

/// The Security Manager (Core Vol 3 Part H) of both roles, chosen per link by `link.role`: on
/// peripheral links it pairs as responder and answers encryption requests from the bonds; on
/// central links it pairs as initiator (`pair`), re-encrypts from the bonds (`encrypt`) and meets
/// Security Requests. It recognises bonded peers behind private addresses and keeps the bonds of
/// both roles in one `BondStore`.
///
/// What it knows of a link is one `PerLink` value, made by `linkOpened` and dropped whole by
/// `linkClosed` (keyed by `LinkID`, never reused); input for a link it was not told of is dropped. Bonds are
/// cached in memory, so an LTK request is answered without touching the disk; writes go through
/// to the store off the caller's context.
///
/// Calling context: `receive`, `linkOpened`, `linkClosed`, `encryptionChanged` and `longTermKey` are
/// synchronous, never block, and may be called from any thread (the host's inbound context in practice).
/// `startEncryption` is called the same way; the caller reports the outcome through `encryptionChanged`.
public final class SecurityManager: Sendable {
    public typealias Send = @Sendable (_ link: Link, _ pdu: [UInt8]) -> Void

    struct SessionEntry {
        var serial: UInt64
        var session: PairingSession
        var timer: TimerHandle?
    }

    /// Each failed Secure Connections passkey attempt tells its maker one bit of a fixed passkey
    /// (Vol 3 Part H 2.3.5.6.3), so about 20 of them, from anywhere, reveal it all.
    struct PasskeyGuesses {
        var failures = 0
        var blockedUntil: MonotonicInstant?
    }

    struct Attempts {
        var failures: Int
        var blockedUntil: MonotonicInstant
    }

    /// Everything about one open link, from `linkOpened` to `linkClosed`.
    struct PerLink {
        let link: Link
        /// The pairing of this link, in progress or finished.
        var session: SessionEntry?
        /// SMP timed out: no more SMP on this link (3.4).
        var smpTimedOut = false
        /// We answered an LTK request from the bond, until the encryption outcome.
        var bondKeyOffered = false
        /// Encrypted with its bond's key, or just bonded: only such a link has proved it is the
        /// bonded peer (an address alone can be claimed by anyone).
        var proven = false
        /// Central role: callers of `pair` and `encrypt`, until the outcome.
        var pairWaiters: [PairWaiter] = []
        var encryptWaiter: EncryptionWaiter?
    }

    struct State {
        var identity: LocalIdentity?
        var bonds: [DeviceAddress: Bond] = [:]
        var links: [LinkID: PerLink] = [:]
        var attempts: [DeviceAddress: Attempts] = [:]
        /// Identities whose bond is being saved, with the link saving it: a second pairing that
        /// completes meanwhile under the same identity must not pass the takeover check too.
        var bondsBeingSaved: [DeviceAddress: LinkID] = [:]
        /// Wrong guesses of our fixed passkey from any address (addresses rotate).
        var passkeyGuesses = PasskeyGuesses()
        var nextSerial: UInt64 = 1
    }

    public let configuration: Configuration
    public let events: AsyncStream<SecurityEvent>
    let eventSink: AsyncStream<SecurityEvent>.Continuation
    let state = Mutex(State())
    let store: any BondStore
    let agent: any PairingAgent
    let clock: any HostClock
    let send: Send
    let localAddress: @Sendable (Link) -> DeviceAddress
    let logger: Logger
    let randomBytes: @Sendable (Int) -> [UInt8]
    let makeKeyPair: @Sendable () -> SecureConnectionsKeyPair
    let now: @Sendable () -> Date
    let startEncryption: StartEncryption?
    /// Small writes (sign counters, last-seen times) go to the store in the order they were made: a
    /// later write of an older sign counter would reopen a replay window after a restart.
    let storeWrites = OrderedStoreWork()

    public init(configuration: Configuration, store: any BondStore, agent: any PairingAgent = AutomaticPairingAgent(),
                clock: any HostClock = SystemClock.shared, localAddress: @escaping @Sendable (Link) -> DeviceAddress,
                send: @escaping Send, logger: Logger = Logger(label: "blesensor.smp"),
                randomBytes: @escaping @Sendable (Int) -> [UInt8] = SecureRandom.bytes,
                makeKeyPair: @escaping @Sendable () -> SecureConnectionsKeyPair = { SecureConnectionsKeyPair() },
                now: @escaping @Sendable () -> Date = { Date() }, startEncryption: StartEncryption? = nil) {
        self.configuration = configuration
        self.store = store
        self.agent = agent
        self.clock = clock
        self.localAddress = localAddress
        self.send = send
        self.logger = logger
        self.randomBytes = randomBytes
        self.makeKeyPair = makeKeyPair
        self.now = now
        self.startEncryption = startEncryption
        (events, eventSink) = AsyncStream.makeStream(of: SecurityEvent.self)
    }

    /// Loads our identity (creating it the first time) and the bonds.
    @discardableResult
    public func start() async throws(BondStoreError) -> LocalIdentity {
        let random = randomBytes
        let identity = try await store.localIdentity {
            LocalIdentity(irk: Key128(random(16))!, address: Self.staticRandomAddress(random(6)), csrk: Key128(random(16))!)
        }
        let bonds = try await store.bonds()
        state.withLock { state in
            state.identity = identity
            state.bonds = Dictionary(bonds.map { ($0.identity, $0) }, uniquingKeysWith: { first, _ in first })
        }
        logger.info("security: \(bonds.count) bond(s) loaded")
        return identity
    }

    /// A random static address: the two most significant bits set, the rest neither all 0 nor all 1.
    static func staticRandomAddress(_ random: [UInt8]) -> BluetoothAddress {
        var bytes = random.count == 6 ? random : [UInt8](repeating: 0x5A, count: 6)
        bytes[5] |= 0xC0
        if bytes[0..<5].allSatisfy({ $0 == 0xFF }) && bytes[5] == 0xFF { bytes[0] = 0xFE }
        if bytes[0..<5].allSatisfy({ $0 == 0 }) && bytes[5] == 0xC0 { bytes[0] = 0x01 }
        return BluetoothAddress(littleEndian: bytes)
    }

    public var localIdentity: LocalIdentity? { state.withLock { $0.identity } }

    /// Whether the link is encrypted with its bond's key (or bonded on this connection): the proof
    /// a bonded central gives. Its stored subscriptions and measurements are for it only then.
    public func isProvenBonded(_ link: Link) -> Bool { state.withLock { $0.links[link.id]?.proven ?? false } }
    public var bonds: [Bond] { state.withLock { Array($0.bonds.values) }.sorted { $0.lastSeen > $1.lastSeen } }

    public func bond(for identity: DeviceAddress) -> Bond? { state.withLock { $0.bonds[identity.bondIdentity] } }


    // MARK: Links

    /// Recognises a bonded central (directly or through its IRK) and sends a Security Request when configured.
    public func linkOpened(_ link: Link) {
        let bond = state.withLock { state -> Bond? in
            if state.links[link.id] == nil { state.links[link.id] = PerLink(link: link) }
            if let bond = state.bonds[link.peer.bondIdentity] { return bond }
            guard ResolvablePrivateAddress.isResolvable(link.peer) else { return nil }
            return state.bonds.values.first { bond in
                bond.peerIRK.map { ResolvablePrivateAddress.resolves(link.peer, irk: $0.bytes) } ?? false
            }
        }
        if let bond {
            let seen = now()
            state.withLock { $0.bonds[bond.identity]?.lastSeen = seen }
            link.setIdentity(bond.identity)
            link.setBonded(true)
            logger.info("\(link.id): bonded \(link.role == .central ? "peripheral" : "central") \(bond.identity)\(link.peer == bond.identity ? "" : " behind \(link.peer)")")
            eventSink.yield(.bondedPeerConnected(link, identity: bond.identity))
            let store = store, logger = logger
            storeWrites.enqueue {
                do { try await store.touch(bond.identity, at: seen) } catch {
                    logger.warning("last-seen time of \(bond.identity) not stored: \(error)")
                }
            }
        }
        if configuration.sendSecurityRequest && link.role == .peripheral {
            transmit(.securityRequest(configuration.policy.authentication), on: link)
        }
    }

    /// Asks a central to encrypt (Security Request, as a peripheral only): a bonded central then
    /// encrypts with its bond, which it may otherwise do only when it reads something protected.
    public func requestSecurity(on link: Link) {
        guard link.role == .peripheral, link.isOpen, !link.security.isEncrypted else { return }
        transmit(.securityRequest(configuration.policy.authentication), on: link)
    }

    public func linkClosed(_ link: Link) {
        guard let closed = state.withLock({ $0.links.removeValue(forKey: link.id) }) else { return }
        closed.session?.timer?.cancel()
        closed.pairWaiters.forEach { $0.resume(returning: .failure(.linkClosed)) }
        closed.encryptWaiter?.continuations.forEach { $0.resume(returning: .failure(.linkClosed)) }
        if let entry = closed.session, !entry.session.isFinished {
            eventSink.yield(.pairingFailed(link, .unspecifiedReason, detail: "the link closed during pairing"))
        }
    }

    // MARK: SMP PDUs

    public func receive(_ pdu: [UInt8], on link: Link) {
        switch state.withLock({ $0.links[link.id]?.smpTimedOut }) {
        case nil:
            logger.debug("\(link.id): SMP on a link that is not open; dropped")
            return
        case true?:
            logger.debug("\(link.id): SMP after its timeout; dropped")
            return
        case false?:
            break
        }
        let command: SMPCommand
        do throws(SMPDecodingError) {
            command = try SMPCommand(decoding: pdu)
        } catch {
            logger.warning("\(link.id): \(error)")
            failSession(on: link, reason: error.failureReason, detail: error.description)
            return
        }
        let central = link.role == .central
        switch command {
        case let .pairingRequest(features) where !central:
            pairingRequest(features, pdu: pdu, on: link)
        case let .securityRequest(requirements) where central:
            securityRequested(requirements, on: link)
        case .pairingRequest, .securityRequest:
            // Each goes one way only: a Pairing Request to the responder, the others to the initiator.
            failSession(on: link, reason: .commandNotSupported, detail: "\(command.opcode) is not for a \(link.role)")
        case .pairingResponse where !central:
            failSession(on: link, reason: .commandNotSupported, detail: "\(command.opcode) is not for a \(link.role)")
        case .pairingFailed, .keypressNotification:
            // Never answered: a Pairing Failed for a Pairing Failed would ping-pong.
            step(on: link, isPairingFailed: true) { $0.receive(command) }
        default:
            step(on: link) { $0.receive(command) }
        }
    }

    /// Runs one input on the link's session and carries out what it says.
    func step(on link: Link, serial expected: UInt64? = nil, isPairingFailed: Bool = false,
                      _ input: (inout PairingSession) -> [PairingAction]) {
        let outcome = state.withLock { state -> (UInt64, [PairingAction])? in
            guard var entry = state.links[link.id]?.session, expected == nil || entry.serial == expected else { return nil }
            let actions = input(&entry.session)
            state.links[link.id]?.session = entry
            return (entry.serial, actions)
        }
        guard let (serial, actions) = outcome else {
            if expected == nil, !isPairingFailed {
                // A pairing command with no pairing in progress (3.5: only a Pairing Request starts one).
                logger.warning("\(link.id): SMP command without a pairing in progress")
                transmit(.pairingFailed(.unspecifiedReason), on: link)
            }
            return
        }
        // Every command of a pairing restarts its timer (3.4), also one that needs no answer yet.
        armTimer(on: link, serial: serial)
        perform(actions, on: link, serial: serial)
    }

    func perform(_ actions: [PairingAction], on link: Link, serial: UInt64) {
        for action in actions {
            switch action {
            case let .send(command):
                transmit(command, on: link)
            case let .started(method):
                eventSink.yield(.pairingStarted(link, method))
            case let .startEncryption(key, properties):
                startEncryption?(link, key, 0, 0, properties)
            case let .askApproval(request):
                approve(request, on: link, serial: serial)
            case let .display(passkey):
                // Never the digits: a log is read by more people than may pair.
                logger.info("\(link.id): a passkey is shown for this pairing")
                let agent = agent
                Task { await agent.display(passkey: passkey, on: link) }
            case .askPasskey:
                let agent = agent
                Task { [weak self] in
                    let value = await agent.enterPasskey(on: link)
                    self?.step(on: link, serial: serial) { $0.passkeyEntered(value) }
                }
            case let .askComparison(value):
                logger.info("\(link.id): numeric comparison: \(String(format: "%06u", value))")
                let agent = agent
                Task { [weak self] in
                    let answer = await agent.confirm(numericComparison: value, on: link)
                    self?.step(on: link, serial: serial) { $0.comparisonAnswered(answer) }
                }
            case let .failed(reason, sent, detail):
                pairingFailed(on: link, serial: serial, reason: reason, sent: sent, detail: detail)
            case let .completed(result):
                completed(result, on: link, serial: serial)
            }
        }
    }

    func transmit(_ command: SMPCommand, on link: Link) {
        send(link, command.encoded)
    }

    /// Malformed or unexpected input: the pairing in progress (if any) fails with `reason`.
    func failSession(on link: Link, reason: PairingFailureReason, detail: String) {
        let entry = state.withLock { $0.links[link.id]?.session }
        transmit(.pairingFailed(reason), on: link)
        if let entry, !entry.session.isFinished {
            state.withLock { state in state.links[link.id]?.session?.session = Self.finished(entry.session) }
            pairingFailed(on: link, serial: entry.serial, reason: reason, sent: true, detail: detail)
        }
    }

    static func finished(_ session: PairingSession) -> PairingSession {
        var copy = session
        _ = copy.receive(.pairingFailed(.unspecifiedReason))
        return copy
    }

    // MARK: GATT state at bonding

    /// Supplies the GATT state (CCCDs…) a link built up before its pairing completed, stored with the bond.
    public func setGATTStateProvider(_ provider: @escaping @Sendable (Link) -> PeerGATTState) {
        gattStateProvider.withLock { $0 = GATTStateProvider(provide: provider) }
    }

    struct GATTStateProvider: Sendable { let provide: @Sendable (Link) -> PeerGATTState }
    let gattStateProvider = Mutex<GATTStateProvider?>(nil)
}
