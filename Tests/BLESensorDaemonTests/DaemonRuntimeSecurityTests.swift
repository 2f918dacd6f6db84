import BLECore
import Bonding
import BridgeConfiguration
import ControlSocket
import Foundation
import Logging
import Peripheral
import SensorBridge
import Sensors
import SMP
import Testing
import VirtualController
@testable import BLESensorDaemon

/// The daemon's runtime behind a real control server: the CLI's security requests end to end,
/// `remove-bond` through its deferred reply and the store.
@Suite struct DaemonRuntimeSecurityTests {
    @Test func theRuntimeAnswersBondsPairingAndRemovalOverTheSocket() async throws {
        var configuration = try BridgeConfiguration.demo(boardsDirectories: [], environment: [:]).get()
        configuration.security.pairing = .window
        let store = InMemoryBondStore()
        for bond in [SecurityFixture.phone, SecurityFixture.laptop] { try await store.saveBond(bond, gattState: .empty, replacing: nil) }
        let logger = Logger(label: "runtime-test")
        let agent = DaemonPairingAgent(settings: configuration.security, clock: SystemClock.shared, logger: logger)

        let radio = VirtualRadio(label: "runtime-security-tests")
        var peripheral = PeripheralManager.Configuration(deviceName: configuration.deviceName)
        peripheral.addressPolicy = .randomStatic(BluetoothAddress("C5:00:00:00:00:0E")!)
        peripheral.security = SecuritySetup(configuration: DaemonSecurity.managerConfiguration(configuration.security), store: store, agent: agent)
        let manager = PeripheralManager(transport: radio.makeController(configuration: .init(address: BluetoothAddress("00:1B:DC:00:00:0E")!)),
                                        configuration: peripheral)
        try await manager.start()
        let bridge = SensorBridge(configuration: configuration, sink: manager,
                                  factory: SensorSourceFactory(board: configuration.board, simulation: SimulatedBoard()), logger: logger)
        let runtime = DaemonRuntime(configuration: configuration, transport: "virtual", address: "C5:00:00:00:00:0E (random static)",
                                    manager: manager, bridge: bridge, agent: agent, clock: SystemClock.shared)

        let directory = NSTemporaryDirectory() + "bsd-\(UInt32.random(in: 0...UInt32.max))"
        let server = ControlServer(path: directory + "/control.sock", handler: runtime)
        try await DedicatedThread.run { () throws(ControlServerError) in try server.start() }
        let path = server.path

        // The client blocks on its socket, so it runs on a thread of its own, never on a Swift concurrency thread.
        let (before, opened, removed, after, bonds) = try await DedicatedThread.run {
            () throws(ControlClientError) -> (StatusSnapshot, PairingStatus, BondStatus, StatusSnapshot, [BondStatus]) in
            let client = try ControlClient.connect(path: path)
            defer { client.close() }
            let before = try client.status()
            let opened = try client.openPairingWindow(seconds: 120)
            let removed = try client.removeBond(BondAddress(address: "00:1a:7d:da:71:13", kind: nil))
            return (before, opened, removed, try client.status(), try client.bonds())
        }
        #expect(before.bonds == ["C4:5B:6C:7D:8E:9F (random)", "00:1A:7D:DA:71:13 (public)"])
        #expect(before.pairing == PairingStatus(mode: .window, windowRemainingSeconds: nil, passkeyMode: .none, passkey: nil))
        #expect(opened.mode == .window && (opened.windowRemainingSeconds ?? 0) > 119)
        #expect(removed.identity == "00:1A:7D:DA:71:13 (public)" && !removed.connected)
        #expect(after.bonds == ["C4:5B:6C:7D:8E:9F (random)"])
        #expect((after.pairing?.windowRemainingSeconds ?? 0) > 100)
        #expect(bonds.map(\.identity) == ["C4:5B:6C:7D:8E:9F (random)"])
        #expect(await store.bonds().map(\.identity) == [SecurityFixture.phoneIdentity])

        let refusal = await DedicatedThread.run { () -> ControlClientError? in
            do throws(ControlClientError) {
                let client = try ControlClient.connect(path: path)
                defer { client.close() }
                _ = try client.removeBond(BondAddress(address: "00:1A:7D:DA:71:13", kind: nil))
                return nil
            } catch { return error }
        }
        #expect(refusal == .daemonError("no bond with 00:1A:7D:DA:71:13; `blesensor bonds list` shows the bonded centrals"))

        await DedicatedThread.run { server.stop() }
        await manager.shutdown()
        try? FileManager.default.removeItem(atPath: directory)
    }
}
