import ATT
import BLECore
import GAP
import GATT
import GATTClient
import GATTServer
import HCI
import L2CAP
import Logging
import Peripheral
import SMP

/// The central role, shaped like CoreBluetooth's `CBCentralManager`: scan, connect, and per link a
/// `RemotePeripheral` (CoreBluetooth's `CBPeripheral`) with a GATT client and pairing.
///
/// It runs on a controller of its own (`init(transport:)`) or beside a `PeripheralManager` on
/// its controller (`init(sharingControllerOf:)`): scanning while it advertises, central and
/// peripheral links side by side. The links are the same `Link` objects the peripheral role uses. Each central link also gets a
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
        /// Pairing and bonds; nil: no pairing, links stay unencrypted (`pair` and `encrypt` throw).
        public var security: SecuritySetup? = nil
        /// Answer a peripheral's Security Request: re-encrypt when bonded, pair otherwise.
        public var answersSecurityRequests = true

        public init() {}
    }

    public nonisolated let events: AsyncStream<CentralEvent>
    public nonisolated let configuration: Configuration
    /// The stack below the facade: the package's daemon and tests reach into it, applications do not.
    package nonisolated let host: HCIHost
    package nonisolated let gap: GAPCentral
    /// The Security Manager of our links: our own, or the peripheral manager's when sharing its
    /// controller (see `init(sharingControllerOf:configuration:logger:)`).
    package nonisolated let security: SecurityManager?
    nonisolated let channels: L2CAPFixedChannels
    nonisolated let peripherals = Locked<[LinkID: RemotePeripheral]>([:])
    nonisolated let roomWaiters = LinkRoomWaiters()
    nonisolated let localServer: GATTServer?
    nonisolated let eventSink: AsyncStream<CentralEvent>.Continuation
    nonisolated let logger: Logger
    /// Our address on links (c1, f5 and f6 take it): the controller's public address once started.
    nonisolated let localAddress: Locked<DeviceAddress>
    /// The peripheral manager whose controller we run on, which owns it; nil with a controller of our own.
    nonisolated let sharedWith: PeripheralManager?
    /// Security events about our links: the Security Manager's own stream, or what the peripheral
    /// manager passes on from the shared one.
    nonisolated let securityEvents: AsyncStream<SecurityEvent>?
    /// We built `security` (and start it); false when it is the peripheral manager's.
    nonisolated let ownsSecurity: Bool
    /// Set by `shutdown()` on a shared controller: the link observer, which cannot be removed,
    /// leaves later links to a central role that joins after us.
    nonisolated let detached = Locked(false)
    private var state = RadioState.unknown
    var scanFilter: [BluetoothUUID] = []
    private var tasks: [Task<Void, Never>] = []
    private(set) var isScanning = false
    /// `find` calls waiting for an address to be heard.
    var finders: [Int: (address: BluetoothAddress, continuation: CheckedContinuation<Discovery?, Never>?, result: Discovery??)] = [:]
    var nextFinder = 0

    public init(transport: any HCITransport, configuration: Configuration = .init(), logger: Logger = Logger(label: "blesensor.central")) {
        var hostConfiguration = HCIHost.Configuration()
        hostConfiguration.clock = configuration.clock
        self.init(host: HCIHost(transport: transport, configuration: hostConfiguration, logger: logger),
                  configuration: configuration, logger: logger)
    }

    /// The central role on the controller of `peripheral`, which keeps owning it: scanning while it
    /// advertises, central links beside its peripheral links (one `Link` object each, like its own).
    ///
    /// - Life cycle: `peripheral.start()` brings the controller up, and must come first; our
    ///   `start()` does not reset it again. Our `shutdown()` stops scanning, disconnects our links
    ///   and leaves, without closing the transport; `peripheral.shutdown()` does that.
    /// - Security: with a `SecuritySetup` on the peripheral, its Security Manager serves our links
    ///   too (one identity, one bond cache), and `configuration.security` and
    ///   `answersSecurityRequests` are not used: the peripheral's setup decides, including how
    ///   Security Requests are answered. With a setup only here, our links get a Security Manager
    ///   of their own and the peripheral's links keep refusing pairing. Give one store to one side only.
    /// - Throws `.controllerAlreadyShared` when another central role runs on that controller.
    public init(sharingControllerOf peripheral: PeripheralManager, configuration: Configuration = .init(),
                logger: Logger = Logger(label: "blesensor.central")) throws(CentralError) {
        let host = peripheral.host
        let gap = GAPCentral(host: host, logger: logger)
        let localAddress = Locked(DeviceAddress(.zero, type: .publicDevice))
        let hooks = CentralRoleHooks(
            startEncryption: Self.encryptionStarter(gap: gap, security: { peripheral.security }, logger: logger),
            localAddress: { localAddress.value })
        guard let shared = peripheral.shareController(with: hooks) else { throw .controllerAlreadyShared }
        if let security = shared.security {
            if configuration.security != nil {
                logger.notice("the peripheral role's Security Manager serves the central links too; this central's security setup is not used")
            }
            self.init(host: host, gap: gap, channels: shared.channels, localAddress: localAddress, security: security,
                      securityEvents: shared.securityEvents, ownsSecurity: false, sharedWith: peripheral,
                      configuration: configuration, logger: logger)
        } else {
            let security = configuration.security.map {
                Self.makeSecurityManager($0, configuration: configuration, channels: shared.channels, gap: gap,
                                         localAddress: localAddress, logger: logger)
            }
            self.init(host: host, gap: gap, channels: shared.channels, localAddress: localAddress, security: security,
                      securityEvents: security?.events, ownsSecurity: true, sharedWith: peripheral,
                      configuration: configuration, logger: logger)
        }
    }

    init(host: HCIHost, configuration: Configuration, logger: Logger) {
        let gap = GAPCentral(host: host, logger: logger)
        let channels = L2CAPFixedChannels(acl: host.acl, clock: configuration.clock, logger: logger)
        channels.attach(to: host.links)
        let localAddress = Locked(DeviceAddress(.zero, type: .publicDevice))
        let security = configuration.security.map {
            Self.makeSecurityManager($0, configuration: configuration, channels: channels, gap: gap,
                                     localAddress: localAddress, logger: logger)
        }
        self.init(host: host, gap: gap, channels: channels, localAddress: localAddress, security: security,
                  securityEvents: security?.events, ownsSecurity: true, sharedWith: nil, configuration: configuration, logger: logger)
    }

    private init(host: HCIHost, gap: GAPCentral, channels: L2CAPFixedChannels, localAddress: Locked<DeviceAddress>,
                 security: SecurityManager?, securityEvents: AsyncStream<SecurityEvent>?, ownsSecurity: Bool,
                 sharedWith: PeripheralManager?, configuration: Configuration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
        self.host = host
        self.gap = gap
        self.channels = channels
        self.localAddress = localAddress
        self.security = security
        self.securityEvents = securityEvents
        self.ownsSecurity = ownsSecurity
        self.sharedWith = sharedWith
        (events, eventSink) = AsyncStream.makeStream(of: CentralEvent.self)
        localServer = Self.makeLocalServer(deviceName: configuration.deviceName, mtu: configuration.mtu, channels: channels,
                                           acl: host.acl, waiters: roomWaiters, logger: logger)
        wireChannels()
        // The central decides connection parameters; a peripheral's request is checked and applied.
        channels.setConnectionParameterRequestHandler { [gap] link, parameters in
            gap.connectionParameterUpdateRequested(parameters, on: link)
        }
        let peripherals = peripherals, waiters = roomWaiters
        host.acl.addDrainObserver { link in
            peripherals.withLock { $0[link.id] }?.gatt.roomAvailable()
            waiters.resume(link.id)
        }
        host.links.addObserver { [weak self] change in self?.linkChanged(change) }
    }

    // MARK: Life cycle

    /// Brings the controller up; the state becomes `.poweredOn` (or says why not). On a shared
    /// controller it only joins: the peripheral manager must have started it.
    public func start() async throws(CentralError) {
        if let sharedWith {
            guard let info = await host.controllerInfo else { throw .notPoweredOn(await sharedWith.currentState) }
            localAddress.withLock { $0 = DeviceAddress(info.publicAddress, type: .publicDevice) }
        } else {
            do {
                let info = try await host.start()
                localAddress.withLock { $0 = DeviceAddress(info.publicAddress, type: .publicDevice) }
            } catch {
                setState(RadioState(failedStart: error))
                throw .controller(error)
            }
        }
        await gap.start()
        if let security, ownsSecurity {
            do { try await security.start() } catch {
                setState(.poweredOff)
                throw .bondStore(error)
            }
        }
        if let securityEvents {
            tasks.append(Task { [weak self] in
                for await event in securityEvents { await self?.handle(event) }
            })
        }
        tasks.append(Task { [weak self, gap] in
            for await event in gap.events { await self?.handle(event) }
        })
        setState(.poweredOn)
    }

    /// With a controller of our own, closes it. On a shared one: stops scanning, disconnects our
    /// links and leaves the controller (and its transport) to the peripheral manager.
    public func shutdown() async {
        if let sharedWith {
            if isScanning { await stopScan() }
            for peripheral in connectedPeripherals { await peripheral.disconnect() }
            detached.withLock { $0 = true }
            channels.removeHandler(for: L2CAPChannelID.attribute, role: .central)
            if ownsSecurity { channels.removeHandler(for: L2CAPChannelID.securityManager, role: .central) }
            sharedWith.releaseController()
            setState(.poweredOff)
        } else {
            await host.shutdown()
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
