import ATT
import BLECore
import GAP
import GATT
import GATTClient
import GATTServer
import HCI
import Host
import L2CAP
import Logging
import SMP

/// The central role, shaped like CoreBluetooth's `CBCentralManager`: scan, connect, and per link a
/// `RemotePeripheral` (CoreBluetooth's `CBPeripheral`) with a GATT client and pairing.
///
/// It runs on a controller of its own (`init(transport:)`) or on a `BLEStack` beside a
/// `PeripheralManager` (`init(stack:)`): scanning while it advertises, central and peripheral links
/// side by side, one Security Manager for both. The links are the same `Link` objects the
/// peripheral role uses. Each central link also gets a
/// small GATT server with the GAP and GATT services (peripherals read our name, and may ask for
/// MTU exchange), as phones have.
///
/// Calling context: an actor for life cycle, scanning and connecting; `RemotePeripheral` is
/// lock-based and callable from any thread.
public actor CentralManager {
    public struct Configuration: Sendable {
        /// Our GAP Device Name, served to peripherals that read it.
        public var deviceName = "blesensor"
        public var mtu = 247
        /// The ATT transaction timeout (Core Vol 3 Part F 3.3.3).
        public var transactionTimeout: Duration = .seconds(30)
        public var connectionParameters = LEConnectionParameters()
        /// Every timer of the stack runs on this clock (a `ManualClock` in tests).
        public var clock: any HostClock = SystemClock.shared
        /// Pairing and bonds, for `init(transport:)`, which builds the stack with them (with
        /// `init(stack:)` the stack's own setup serves; giving one here too is refused). Nil: no
        /// pairing, links stay unencrypted (`pair` and `encrypt` throw).
        public var security: SecuritySetup? = nil
        /// Answer a peripheral's Security Request: re-encrypt when bonded, pair otherwise. For
        /// `init(transport:)`; on a shared stack its security setup's policy decides, and `false`
        /// here is refused.
        public var answersSecurityRequests = true

        public init() {}
    }

    public nonisolated let events: AsyncStream<CentralEvent>
    public nonisolated let configuration: Configuration
    /// The host below this facade, which a `PeripheralManager(stack:)` may share.
    public nonisolated let stack: BLEStack
    /// We built the stack (`init(transport:)`), so our `shutdown()` closes it.
    nonisolated let ownsStack: Bool
    /// The stack's layers: the package's daemon and tests reach into them, applications do not.
    package nonisolated var host: HCIHost { stack.host }
    package nonisolated let gap: GAPCentral
    /// The stack's Security Manager (one for both roles), when it has a security setup.
    package nonisolated var security: SecurityManager? { stack.security }
    nonisolated var channels: L2CAPFixedChannels { stack.channels }
    nonisolated var roomWaiters: LinkRoomWaiters { stack.roomWaiters }
    nonisolated let peripherals = Locked<[LinkID: RemotePeripheral]>([:])
    nonisolated let localServer: GATTServer?
    nonisolated let eventSink: AsyncStream<CentralEvent>.Continuation
    nonisolated let logger: Logger
    /// Our address on links (c1, f5 and f6 take it): the controller's public address once started.
    nonisolated let localAddress: Locked<DeviceAddress>
    /// The Security Manager's events about our links.
    nonisolated let securityEvents: AsyncStream<SecurityEvent>
    /// Set by `shutdown()` on a shared stack: the link observer, which cannot be removed, leaves
    /// later links to a central role that attaches after us.
    nonisolated let detached = Locked(false)
    private var state = RadioState.unknown
    var scanFilter: [BluetoothUUID] = []
    private var tasks: [Task<Void, Never>] = []
    private(set) var isScanning = false
    /// `find` calls waiting for an address to be heard.
    var finders: [Int: (address: BluetoothAddress, continuation: CheckedContinuation<Discovery?, Never>?, result: Discovery??)] = [:]
    var nextFinder = 0

    /// On a stack of its own, built from `configuration` (its clock and security setup), which
    /// `shutdown()` closes.
    public init(transport: any HCITransport, configuration: Configuration = .init(), logger: Logger = Logger(label: "blesensor.central")) {
        var stackConfiguration = BLEStack.Configuration()
        stackConfiguration.clock = configuration.clock
        stackConfiguration.security = configuration.security.map { setup in
            var setup = setup
            if !configuration.answersSecurityRequests { setup.configuration.respondToSecurityRequests = .ignore }
            return setup
        }
        let stack = BLEStack(transport: transport, configuration: stackConfiguration, logger: logger)
        var own = configuration
        own.security = nil
        // A new stack has no central role yet.
        try! self.init(stack: stack, configuration: own, ownsStack: true, logger: logger)
    }

    /// The central role on `stack`, beside a peripheral role on its controller or alone; the caller
    /// (or the `PeripheralManager` that made the stack) shuts the stack down.
    ///
    /// - Life cycle: `start()` brings the controller up unless the other role did already; our
    ///   `shutdown()` stops scanning, disconnects our links and leaves the stack running.
    /// - Security: the stack's setup serves our links too (one identity, one bond cache); giving
    ///   one in `configuration`, or `answersSecurityRequests = false` (set that policy in the
    ///   stack's setup), is refused with `.securityBelongsToTheStack`.
    /// - Throws `.stack(.roleTaken(.central))` when another central role runs on the stack.
    public init(stack: BLEStack, configuration: Configuration = .init(), logger: Logger = Logger(label: "blesensor.central")) throws(CentralError) {
        // The stack's security setup, its policy on Security Requests included, serves both roles.
        guard configuration.security == nil, configuration.answersSecurityRequests else { throw .securityBelongsToTheStack }
        try self.init(stack: stack, configuration: configuration, ownsStack: false, logger: logger)
    }

    private init(stack: BLEStack, configuration: Configuration, ownsStack: Bool, logger: Logger) throws(CentralError) {
        var configuration = configuration
        configuration.security = stack.configuration.security
        configuration.clock = stack.configuration.clock
        self.configuration = configuration
        self.logger = logger
        self.stack = stack
        self.ownsStack = ownsStack
        let host = stack.host
        let gap = GAPCentral(host: host, logger: logger)
        self.gap = gap
        let localAddress = Locked(DeviceAddress(.zero, type: .publicDevice))
        self.localAddress = localAddress
        do {
            securityEvents = try stack.attach(.central, maxLinks: 1, hooks: RoleHooks(
                localAddress: { localAddress.value },
                startEncryption: Self.encryptionStarter(gap: gap, security: { stack.security }, logger: logger)))
        } catch {
            throw .stack(error)
        }
        (events, eventSink) = AsyncStream.makeStream(of: CentralEvent.self)
        localServer = Self.makeLocalServer(deviceName: configuration.deviceName, mtu: configuration.mtu, output: stack.attBearer, logger: logger)
        wireChannels()
        // The central decides connection parameters; a peripheral's request is checked and applied.
        stack.channels.setConnectionParameterRequestHandler { [gap] link, parameters in
            gap.connectionParameterUpdateRequested(parameters, on: link)
        }
        let peripherals = peripherals
        host.acl.addDrainObserver { link in peripherals.withLock { $0[link.id] }?.gatt.roomAvailable() }
        host.links.addObserver { [weak self] change in self?.linkChanged(change) }
    }

    // MARK: Life cycle

    /// Brings the controller up, unless the stack's other role did already; the state becomes
    /// `.poweredOn` (or says why not).
    public func start() async throws(CentralError) {
        // Started already: a second start would read the GAP and security events twice.
        guard tasks.isEmpty else { return }
        do {
            let info = try await stack.start()
            localAddress.withLock { $0 = DeviceAddress(info.publicAddress, type: .publicDevice) }
        } catch {
            switch error {
            case let .controller(failure):
                setState(RadioState(failedStart: failure))
                throw .controller(failure)
            case let .bondStore(failure):
                setState(.poweredOff)
                throw .bondStore(failure)
            case .roleTaken, .cancelled:
                throw .stack(error)
            }
        }
        await gap.start()
        let securityEvents = securityEvents
        tasks.append(Task { [weak self] in
            for await event in securityEvents { await self?.handle(event) }
        })
        tasks.append(Task { [weak self, gap] in
            for await event in gap.events { await self?.handle(event) }
        })
        setState(.poweredOn)
    }

    /// With a stack of our own, closes it. On a shared one: stops scanning, disconnects our links
    /// and leaves the stack (and its controller) to the other role.
    public func shutdown() async {
        if ownsStack {
            await stack.shutdown()
        } else {
            if isScanning { await stopScan() }
            for peripheral in connectedPeripherals { await peripheral.disconnect() }
            detached.withLock { $0 = true }
            channels.removeHandler(for: L2CAPChannelID.attribute, role: .central)
            stack.detach(.central)
            setState(.poweredOff)
        }
        tasks.forEach { $0.cancel() }
    }

    public var currentState: RadioState { state }

    func setState(_ new: RadioState) {
        guard new != state else { return }
        state = new
        eventSink.yield(.stateChanged(new))
    }

    // MARK: Scanning

    /// Reports devices as `.discovered` events until `stopScan()`; with `services`, only devices
    /// that advertise one of them (as a UUID or with service data, in the advertising data or scan
    /// response).
    public func scanForPeripherals(withServices services: [BluetoothUUID] = [], parameters: ScanParameters = .init()) async throws(CentralError) {
        guard state == .poweredOn else { throw .notPoweredOn(state) }
        scanFilter = services
        do { try await gap.startScanning(parameters) } catch { throw .scanning(error) }
        isScanning = true
    }

    public func stopScan() async {
        isScanning = false
        do { try await gap.stopScanning() } catch { logger.warning("stopping the scan failed: \(error)") }
    }

    // MARK: Connecting

    /// Connects and returns the peripheral once the link is up (CoreBluetooth's `connect` and
    /// `didConnect`). Throws when the connection does not complete within `timeout`; cancelling
    /// the task cancels the attempt.
    public func connect(to address: DeviceAddress, timeout: Duration = .seconds(10)) async throws(CentralError) -> RemotePeripheral {
        guard state == .poweredOn else { throw .notPoweredOn(state) }
        let link: Link
        do {
            link = try await gap.connect(to: address, parameters: configuration.connectionParameters, timeout: timeout)
        } catch {
            throw .connectionFailed(address, error)
        }
        // The link observer made its peripheral before any of its PDUs could arrive.
        guard let peripheral = peripherals.withLock({ $0[link.id] }) else { throw .disconnected(link.closeReason ?? .connectionTimeout) }
        return peripheral
    }

    /// Disconnects (CoreBluetooth's `cancelPeripheralConnection`); returns once the link is down.
    public func cancelConnection(_ peripheral: RemotePeripheral) async {
        await peripheral.disconnect()
    }

    /// Leaves at once (Ctrl-C): stops scanning, asks the controller to disconnect every link without
    /// waiting for the peers, then shuts down. Calls under way end with `.disconnected` errors.
    public func leave() async {
        if isScanning { await stopScan() }
        for peripheral in connectedPeripherals {
            do { try await gap.disconnect(peripheral.link, reason: .remoteUserTerminated) } catch {
                // Already closing, or the controller is gone: shutdown closes the link either way.
            }
        }
        await shutdown()
    }

    /// Connected peripherals.
    public nonisolated var connectedPeripherals: [RemotePeripheral] {
        peripherals.withLock { Array($0.values) }.sorted { $0.link.id < $1.link.id }
    }
}
