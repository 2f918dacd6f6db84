import ATT
import BLECore
import GAP
import GATT
import GATTClient
import GATTServer
import HCI
import L2CAP
import Logging
import SMP
import Synchronization

/// The central role, shaped like CoreBluetooth's `CBCentralManager`: scan, connect, and per link a
/// `RemotePeripheral` (CoreBluetooth's `CBPeripheral`) with a GATT client and pairing.
///
/// The links are the same `Link` objects the peripheral role uses. Each central link also gets a
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
    public nonisolated let host: HCIHost
    public nonisolated let gap: GAPCentral
    public nonisolated let security: SecurityManager?
    nonisolated let channels: L2CAPFixedChannels
    nonisolated let peripherals = Locked<[LinkID: RemotePeripheral]>([:])
    nonisolated let roomWaiters = LinkRoomWaiters()
    nonisolated let localServer: GATTServer?
    nonisolated let eventSink: AsyncStream<CentralEvent>.Continuation
    nonisolated let logger: Logger
    /// Our address on links (c1, f5 and f6 take it): the controller's public address once started.
    nonisolated let localAddress: Locked<DeviceAddress>
    private var state = RadioState.unknown
    var scanFilter: [BluetoothUUID] = []
    private var tasks: [Task<Void, Never>] = []
    private(set) var isScanning = false
    /// `find` calls waiting for an address to be heard.
    private var finders: [Int: (address: BluetoothAddress, continuation: CheckedContinuation<Discovery?, Never>?, result: Discovery??)] = [:]
    private var nextFinder = 0

    public init(transport: any HCITransport, configuration: Configuration = .init(), logger: Logger = Logger(label: "blesensor.central")) {
        var hostConfiguration = HCIHost.Configuration()
        hostConfiguration.clock = configuration.clock
        self.init(host: HCIHost(transport: transport, configuration: hostConfiguration, logger: logger),
                  configuration: configuration, logger: logger)
    }

    init(host: HCIHost, configuration: Configuration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
        self.host = host
        (events, eventSink) = AsyncStream.makeStream(of: CentralEvent.self)
        let gap = GAPCentral(host: host, logger: logger)
        self.gap = gap
        let channels = L2CAPFixedChannels(acl: host.acl, clock: configuration.clock, logger: logger)
        self.channels = channels
        channels.attach(to: host.links)
        localServer = Self.makeLocalServer(deviceName: configuration.deviceName, mtu: configuration.mtu, channels: channels, logger: logger)
        let localAddress = Locked(DeviceAddress(.zero, type: .publicDevice))
        self.localAddress = localAddress
        if let setup = configuration.security {
            security = Self.makeSecurityManager(setup, configuration: configuration, channels: channels, gap: gap,
                                                localAddress: localAddress, logger: logger)
        } else {
            security = nil
        }
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

    /// The HCI status a failed command carries, for those waiting on the outcome of encryption.
    static func status(of error: GAPError) -> HCIStatus {
        if case let .controller(.commandFailed(_, status)) = error { return status }
        return .unspecifiedError
    }

    /// The Security Manager of central links: SMP on L2CAP, encryption started through GAP.
    private static func makeSecurityManager(_ setup: SecuritySetup, configuration: Configuration, channels: L2CAPFixedChannels,
                                            gap: GAPCentral, localAddress: Locked<DeviceAddress>, logger: Logger) -> SecurityManager {
        var managerConfiguration = setup.configuration
        if !configuration.answersSecurityRequests { managerConfiguration.respondToSecurityRequests = .ignore }
        // The encryption-start closure needs the manager it is given to.
        let built = Locked<SecurityManager?>(nil)
        let manager = SecurityManager(
            configuration: managerConfiguration, store: setup.store, agent: setup.agent, clock: configuration.clock,
            localAddress: { _ in localAddress.value },
            send: { link, pdu in
                do throws(ACLSendError) {
                    try channels.send(pdu, channel: L2CAPChannelID.securityManager, on: link)
                } catch {
                    logger.warning("\(link.id): SMP PDU not sent: \(error)")
                }
            }, logger: logger,
            startEncryption: { link, key, random, ediv, properties in
                Task {
                    do throws(GAPError) {
                        try await gap.startEncryption(on: link, key: key, random: random, ediv: ediv, properties: properties)
                    } catch {
                        // What waits on the Security Manager must end: the controller never will start it.
                        logger.warning("\(link.id): starting encryption failed: \(error)")
                        built.value?.encryptionChanged(on: link, status: status(of: error))
                    }
                }
            })
        built.withLock { $0 = manager }
        return manager
    }

    // MARK: Life cycle

    /// Brings the controller up; the state becomes `.poweredOn` (or says why not).
    public func start() async throws(CentralError) {
        do {
            let info = try await host.start()
            localAddress.withLock { $0 = DeviceAddress(info.publicAddress, type: .publicDevice) }
        } catch {
            setState(RadioState(failedStart: error))
            throw .controller(error)
        }
        await gap.start()
        if let security {
            do { try await security.start() } catch {
                setState(.poweredOff)
                throw .bondStore(error)
            }
            tasks.append(Task { [weak self] in
                for await event in security.events { await self?.handle(event) }
            })
        }
        tasks.append(Task { [weak self, gap] in
            for await event in gap.events { await self?.handle(event) }
        })
        setState(.poweredOn)
    }

    public func shutdown() async {
        await host.shutdown()
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

    // MARK: Finders (see `find`)

    func registerFinder(for address: BluetoothAddress) -> Int {
        nextFinder += 1
        finders[nextFinder] = (address, nil, nil)
        return nextFinder
    }

    /// A finder's result may come before its continuation is attached (the report was quick).
    func attach(_ continuation: CheckedContinuation<Discovery?, Never>, toFinder id: Int) {
        guard let finder = finders[id] else { return continuation.resume(returning: nil) }
        if let result = finder.result {
            finders[id] = nil
            return continuation.resume(returning: result)
        }
        finders[id]?.continuation = continuation
    }

    func finishFinder(_ id: Int, with report: Discovery?) {
        guard let finder = finders[id], finder.result == nil else { return }
        if let continuation = finder.continuation {
            finders[id] = nil
            continuation.resume(returning: report)
        } else {
            finders[id]?.result = .some(report)
        }
    }

    func reportToFinders(_ report: Discovery) {
        for (id, finder) in finders where finder.address == report.peer.address && report.kind.isConnectable {
            finishFinder(id, with: report)
        }
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

    /// Connected peripherals.
    public nonisolated var connectedPeripherals: [RemotePeripheral] {
        peripherals.withLock { Array($0.values) }.sorted { $0.link.id < $1.link.id }
    }
}
