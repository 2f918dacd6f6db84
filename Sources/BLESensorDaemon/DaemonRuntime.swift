import BLECore
import BridgeConfiguration
import ControlSocket
import GAP
import Peripheral
import SensorBridge
import Synchronization

/// The running daemon's state that `status` reports, kept current from the peripheral's events.
/// Read on the control server's thread: every field is behind a short lock or immutable.
final class DaemonRuntime: ControlHandler {
    let configuration: BridgeConfiguration
    let transport: String
    let address: String
    let manager: PeripheralManager
    let bridge: SensorBridge
    let centrals: CentralRegistry
    let agent: DaemonPairingAgent
    let security: SecurityControl
    private let started: MonotonicInstant
    private let clock: any HostClock
    private let advertising = Mutex(false)
    private let exporters = Mutex<[any SensorExporter]>([])
    /// From bring-up: what this controller cannot do (`ControllerLimitation`).
    let controllerLimitations: [ControllerLimitationStatus]
    let storeHealth: BondStoreHealth?

    init(configuration: BridgeConfiguration, transport: String, address: String, manager: PeripheralManager,
         bridge: SensorBridge, agent: DaemonPairingAgent, clock: any HostClock, controllerLimitations: [ControllerLimitationStatus] = [],
         storeHealth: BondStoreHealth? = nil) {
        self.storeHealth = storeHealth
        self.controllerLimitations = controllerLimitations
        self.agent = agent
        self.configuration = configuration
        self.transport = transport
        self.address = address
        self.manager = manager
        self.bridge = bridge
        self.clock = clock
        self.started = clock.now
        self.centrals = CentralRegistry(services: bridge.services)
        self.security = SecurityControl(security: manager.security, agent: agent, centrals: centrals)
    }

    /// Advertising runs while fewer than the maximum centrals are connected (GAP resumes it).
    func setAdvertising(_ on: Bool) { advertising.withLock { $0 = on } }

    func setExporters(_ list: [any SensorExporter]) { exporters.withLock { $0 = list } }

    var isAdvertising: Bool {
        let connected = centrals.count
        return advertising.withLock { $0 } && connected < configuration.advertising.maxCentrals
            && (connected == 0 || manager.gap.advertisesBesideLinks)
    }

    func status() -> StatusSnapshot {
        let (seconds, attoseconds) = (clock.now - started).components
        return StatusSnapshot(transport: transport, address: address, advertising: isAdvertising,
                       uptimeSeconds: Double(seconds) + Double(attoseconds) / 1e18,
                       board: configuration.board.name, deviceName: configuration.deviceName,
                       centrals: centrals.statuses(statistics: manager.statistics()), sensors: bridge.sensorStatus(),
                       bonds: security.bondIdentities, pairing: security.pairing, controllerLimitations: controllerLimitations,
                       bondStoreProblems: storeHealth.map(\.problems).flatMap { $0.isEmpty ? nil : $0 },
                       exporters: exporters.withLock { $0 }.map { $0.status() })
    }

    func bonds() -> Result<[BondStatus], ControlFailure> {
        security.bonds().mapError(\.failure)
    }

    /// The store write runs in a task; the control server's thread only starts it.
    func removeBond(_ address: BondAddress, reply: DeferredReply<BondStatus>) {
        let security = self.security
        Task { reply.complete(await security.removeBond(address).mapError(\.failure)) }
    }

    func pairing() -> Result<PairingStatus, ControlFailure> {
        security.pairingWithPasskey().mapError(\.failure)
    }

    func openPairingWindow(seconds: Int) -> Result<PairingStatus, ControlFailure> {
        security.openPairingWindow(seconds: seconds).mapError(\.failure)
    }

    /// One line for systemd's STATUS= and the log.
    var summary: String {
        let sensors = bridge.sensorStatus()
        let healthy = sensors.filter { $0.state == .ok || $0.state == .paused }.count
        return "\(centrals.count) central(s) connected, \(healthy)/\(sensors.count) sensors reading"
    }
}
