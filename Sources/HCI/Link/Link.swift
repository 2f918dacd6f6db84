import BLECore
import Synchronization

/// Identifies one link for the life of the process. Controllers reuse connection handles as soon as
/// a link closes; a `LinkID` is never reused, so state keyed by it can never leak into a new link.
public struct LinkID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: UInt64

    private static let counter = Atomic<UInt64>(0)

    /// A fresh identity, different from every other in this process.
    public static func next() -> LinkID {
        LinkID(rawValue: counter.wrappingAdd(1, ordering: .relaxed).newValue)
    }

    init(rawValue: UInt64) { self.rawValue = rawValue }

    public static func < (lhs: LinkID, rhs: LinkID) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { "link#\(rawValue)" }
}

/// One LE link (Bumble's `Connection`, NimBLE's `ble_hs_conn`): created by the host when the
/// controller reports the connection complete, closed when it reports the disconnection, and
/// handed to every layer instead of a bare connection handle.
///
/// Immutable facts (`id`, `handle`, `role`, `peer`) are plain properties; what changes during the
/// link (parameters, data length, ATT MTU, security) sits behind one lock and is read as a snapshot.
/// Calling context: any thread.
public final class Link: Sendable, Hashable, CustomStringConvertible {
    public let id: LinkID
    /// The controller's connection handle: valid only while `isOpen`, then reused for other links.
    public let handle: UInt16
    /// Our role on the link.
    public let role: HCIRole
    /// The peer's address as the controller reported it (possibly a resolvable private address).
    public let peer: DeviceAddress

    /// Connection parameters in controller units (interval 1.25 ms, supervision timeout 10 ms).
    public struct Parameters: Sendable, Equatable {
        public var interval: UInt16
        public var latency: UInt16
        public var supervisionTimeout: UInt16

        public init(interval: UInt16, latency: UInt16, supervisionTimeout: UInt16) {
            self.interval = interval
            self.latency = latency
            self.supervisionTimeout = supervisionTimeout
        }

        public var intervalMilliseconds: Double { Double(interval) * 1.25 }
    }

    /// LE Data Length in each direction (octets of LL payload).
    public struct DataLength: Sendable, Equatable {
        public var maxTxOctets: UInt16 = 27
        public var maxRxOctets: UInt16 = 27
        public init(maxTxOctets: UInt16 = 27, maxRxOctets: UInt16 = 27) {
            self.maxTxOctets = maxTxOctets
            self.maxRxOctets = maxRxOctets
        }
    }

    struct State {
        var isOpen = true
        var closeReason: HCIStatus?
        /// The peer's identity address once known (bonding, address resolution); `peer` until then.
        var identity: DeviceAddress?
        var parameters: Parameters
        var dataLength = DataLength()
        var security = LinkSecurity.none
        /// The peer has a bond with us (recognised at connection, or it just bonded).
        var bonded = false
        /// The key we supplied (or asked for) that the next Encryption Change of this link applies.
        var pendingKey: EncryptionKeyProperties?
        var remoteVersion: HCIReadRemoteVersionCompleteEvent?
    }

    private let state: Mutex<State>
    /// Apart from `state`: the notification engine reads it for every value it admits.
    private let attMTU = Atomic(23)

    /// Links are created by `HCIHost` when a connection completes; emulations and tests may build
    /// their own.
    public init(handle: UInt16, role: HCIRole, peer: DeviceAddress, parameters: Parameters) {
        self.id = .next()
        self.handle = handle
        self.role = role
        self.peer = peer
        self.state = Mutex(State(parameters: parameters))
    }

    convenience init(_ event: LEConnectionCompleteEvent) {
        self.init(handle: event.handle, role: event.role, peer: event.peer,
                  parameters: Parameters(interval: event.interval, latency: event.latency, supervisionTimeout: event.supervisionTimeout))
    }

    // MARK: Snapshots

    public var isOpen: Bool { state.withLock { $0.isOpen } }
    /// Why the link closed, once it has.
    public var closeReason: HCIStatus? { state.withLock { $0.closeReason } }
    public var identity: DeviceAddress { state.withLock { $0.identity } ?? peer }
    public var parameters: Parameters { state.withLock { $0.parameters } }
    public var dataLength: DataLength { state.withLock { $0.dataLength } }
    /// The ATT MTU (23 until an Exchange MTU completes).
    public var mtu: Int { attMTU.load(ordering: .acquiring) }
    public var security: LinkSecurity { state.withLock { $0.security } }
    /// Whether the peer is bonded: its missing encryption is then Insufficient Encryption, not
    /// Insufficient Authentication (it has keys and only needs to use them).
    public var isBonded: Bool { state.withLock { $0.bonded } }
    public var remoteVersion: HCIReadRemoteVersionCompleteEvent? { state.withLock { $0.remoteVersion } }

    // MARK: Updates (by the layer that owns each fact)

    public func setIdentity(_ address: DeviceAddress) { state.withLock { $0.identity = address } }
    public func setMTU(_ mtu: Int) { attMTU.store(mtu, ordering: .releasing) }
    public func setBonded(_ bonded: Bool) { state.withLock { $0.bonded = bonded } }

    func update(_ body: (inout State) -> Void) { state.withLock { body(&$0) } }

    /// The key an encryption procedure about to start on this link uses (we answered the peer's
    /// LTK request with it, or started encryption with it). Only an Encryption Change that follows
    /// on this very link can raise its level.
    public func expectEncryption(with key: EncryptionKeyProperties) {
        state.withLock { $0.pendingKey = key }
    }

    /// Applies Encryption Change / Key Refresh. Returns the new security, or `nil` when nothing
    /// changed because no key was expected on this link (a stale event for a link that no longer
    /// exists must not raise a new link's level).
    func encryptionChanged(enabled: Bool, controllerKeySize: UInt8?) -> LinkSecurity? {
        state.withLock { state in
            guard state.isOpen else { return nil }
            guard enabled else {
                state.pendingKey = nil
                state.security = .none
                return state.security
            }
            guard let key = state.pendingKey else { return nil }
            // The key's own size is authoritative on LE (the controller sees a 128-bit key and
            // may report 16); fall back to the event only for a key that carries none.
            let size = key.keySize > 0 ? key.keySize : Int(controllerKeySize ?? 0)
            state.security = LinkSecurity(level: key.level, keySize: size)
            return state.security
        }
    }

    /// Marks the link closed; `false` if it already was.
    func close(reason: HCIStatus) -> Bool {
        state.withLock { state in
            guard state.isOpen else { return false }
            state.isOpen = false
            state.closeReason = reason
            return true
        }
    }

    // MARK: Identity

    public static func == (lhs: Link, rhs: Link) -> Bool { lhs.id == rhs.id }
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }

    public var description: String {
        let parameters = self.parameters
        return "\(id) handle 0x\(String(handle, radix: 16)) \(role) peer \(peer) interval \(parameters.intervalMilliseconds) ms latency \(parameters.latency) timeout \(Int(parameters.supervisionTimeout) * 10) ms"
    }
}
