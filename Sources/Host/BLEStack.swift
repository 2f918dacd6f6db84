import BLECore
import Bonding
import HCI
import L2CAP
import Logging
import SMP
import Synchronization

/// The LE host below both roles, as Bumble's `Device` is: one HCI host on one controller, its one
/// L2CAP, the optional Security Manager that pairs and re-encrypts links of either role, the tasks
/// waiting for a link's queue to drain, and each link's ATT bearer. `PeripheralManager(stack:)` and
/// `CentralManager(stack:)` are the facades on it; each role may be attached once.
///
/// Life cycle: `start()` brings the controller up and loads the bonds the first time it is called;
/// later calls (the other role's) return what the first found. `shutdown()` closes the transport;
/// a facade made with `init(transport:)` owns its stack and shuts it down with itself.
///
/// Calling context: any thread.
public final class BLEStack: Sendable {
    public struct Configuration: Sendable {
        /// Every timer of the stack runs on this clock (a `ManualClock` in tests).
        public var clock: any HostClock = SystemClock.shared
        /// Pairing and bonds for the links of both roles; nil: no pairing, links stay unencrypted.
        public var security: SecuritySetup? = nil

        public init() {}
    }

    public let configuration: Configuration
    /// The layers below the facades: the package's daemon and tests reach into them, applications do not.
    package let host: HCIHost
    package let channels: L2CAPFixedChannels
    package let security: SecurityManager?
    /// ATT servers and clients whose send found a link's queue full wait here for it to drain.
    package let roomWaiters = LinkRoomWaiters()
    let logger: Logger
    let roles = Locked<[HCIRole: AttachedRole]>([:])
    private let startGate: StartGate
    /// The task passing the Security Manager's events to the roles, once the bonds are loaded.
    private let router = Locked<Task<Void, Never>?>(nil)

    public convenience init(transport: any HCITransport, configuration: Configuration = .init(),
                            logger: Logger = Logger(label: "blesensor.host")) {
        var hostConfiguration = HCIHost.Configuration()
        hostConfiguration.clock = configuration.clock
        self.init(host: HCIHost(transport: transport, configuration: hostConfiguration, logger: logger),
                  configuration: configuration, logger: logger)
    }

    /// On a host built by the caller (tests give theirs a virtual controller's transport).
    package init(host: HCIHost, configuration: Configuration, logger: Logger) {
        self.configuration = configuration
        self.host = host
        self.logger = logger
        let channels = L2CAPFixedChannels(acl: host.acl, clock: configuration.clock, logger: logger)
        self.channels = channels
        channels.attach(to: host.links)
        let roles = roles
        security = configuration.security.map { setup in
            let built = Mutex<SecurityManager?>(nil)
            let manager = SecurityManager(
                configuration: setup.configuration, store: setup.store, agent: setup.agent, clock: configuration.clock,
                localAddress: { link in
                    roles.withLock { $0[link.role]?.hooks.localAddress() } ?? DeviceAddress(.zero, type: .publicDevice)
                },
                send: { link, pdu in channels.sendSecurityManagerPDU(pdu, on: link) }, logger: logger,
                startEncryption: { link, key, random, ediv, properties in
                    guard let start = roles.withLock({ $0[link.role]?.hooks.startEncryption }) else {
                        // No role starts encryption on this link (its role left): what waits on it must still end.
                        built.withLock { $0 }?.encryptionChanged(on: link, status: .commandDisallowed)
                        return
                    }
                    start(link, key, random, ediv, properties)
                })
            built.withLock { $0 = manager }
            channels.setHandler(for: L2CAPChannelID.securityManager) { link, payload in manager.receive(payload, on: link) }
            return manager
        }
        let waiters = roomWaiters
        host.acl.addDrainObserver { link in waiters.resume(link.id) }
        let security = security, router = router
        startGate = StartGate { await Self.bringUp(host: host, security: security, roles: roles, router: router) }
    }

    /// The ATT bearer of a link (L2CAP fixed channel 0x0004), its queue waited out in `roomWaiters`.
    package var attBearer: ATTBearer { ATTBearer.fixedChannel(of: channels, acl: host.acl, waiters: roomWaiters) }

    // MARK: Life cycle

    /// Brings the controller up and loads the bonds, once; every later call returns the first's
    /// result. A caller cancelled while it waits gets `.cancelled` at once; the start goes on for
    /// the other role, and stops when no caller waits for it any more.
    public func start() async throws(BLEStackError) -> ControllerInfo {
        try await startGate.start().get()
    }

    /// Closes the transport; every link of both roles ends with it, and the stack cannot start again.
    public func shutdown() async {
        startGate.shutDown()
        await host.shutdown()
        router.withLock { $0.take() }?.cancel()
        roles.withLock { roles in roles.values.forEach { $0.securityEvents.finish() } }
    }

    /// One attempt at bringing the stack up: the controller, then the bonds and the routing of
    /// the Security Manager's events (once, however many attempts it takes).
    private static func bringUp(host: HCIHost, security: SecurityManager?, roles: Locked<[HCIRole: AttachedRole]>,
                                router: Locked<Task<Void, Never>?>) async -> Result<ControllerInfo, BLEStackError> {
        let info: ControllerInfo
        do throws(HCIHostError) { info = try await host.start() } catch { return .failure(.controller(error)) }
        if Task.isCancelled { return .failure(.cancelled) }
        guard let security else { return .success(info) }
        do throws(BondStoreError) { _ = try await security.start() } catch { return .failure(.bondStore(error)) }
        router.withLock { router in
            if router == nil { router = routeSecurityEvents(of: security, to: roles) }
        }
        return .success(info)
    }

    /// The one task that reads the Security Manager's events, each passed to the role of its link;
    /// an event of no link (a bond removed) goes to both roles.
    private static func routeSecurityEvents(of security: SecurityManager, to roles: Locked<[HCIRole: AttachedRole]>) -> Task<Void, Never> {
        Task {
            for await event in security.events {
                let attached = roles.value
                let sinks: [AsyncStream<SecurityEvent>.Continuation]
                if let link = event.link {
                    sinks = attached[link.role].map { [$0.securityEvents] } ?? []
                } else {
                    sinks = attached.values.map(\.securityEvents)
                }
                sinks.forEach { $0.yield(event) }
            }
        }
    }
}
