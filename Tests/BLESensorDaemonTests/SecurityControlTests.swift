import BLECore
import Bonding
import BridgeConfiguration
import ControlSocket
import Foundation
import HCI
import Logging
import Peripheral
import SMP
import Testing
@testable import BLESensorDaemon

/// A Security Manager over an in-memory store holding `bonds`, with the daemon's agent and registry.
struct SecurityFixture {
    static let phoneIdentity = DeviceAddress(BluetoothAddress("C4:5B:6C:7D:8E:9F")!, type: .randomDevice)
    static let laptopIdentity = DeviceAddress(BluetoothAddress("00:1A:7D:DA:71:13")!, type: .publicDevice)
    /// The laptop's 48 bits as a random identity too: the address alone is then ambiguous.
    static let twinIdentity = DeviceAddress(BluetoothAddress("00:1A:7D:DA:71:13")!, type: .randomDevice)
    static let created = Date(timeIntervalSince1970: 1_746_100_800)

    static func bond(_ identity: DeviceAddress, authenticated: Bool, secureConnections: Bool, irk: Bool, seenAfter: TimeInterval) -> Bond {
        let ltk = LongTermKeyRecord(key: Key128([UInt8](repeating: 7, count: 16))!, ediv: 0, rand: 0, keySize: 16,
                                    authenticated: authenticated, secureConnections: secureConnections)
        return Bond(identity: identity, ltk: ltk, peerIRK: irk ? Key128([UInt8](repeating: 9, count: 16)) : nil,
                    createdAt: created, lastSeen: created + seenAfter)
    }

    static let phone = bond(phoneIdentity, authenticated: true, secureConnections: true, irk: true, seenAfter: 60)
    static let laptop = bond(laptopIdentity, authenticated: false, secureConnections: false, irk: false, seenAfter: 30)
    static let twin = bond(twinIdentity, authenticated: false, secureConnections: true, irk: false, seenAfter: 0)

    let clock = ManualClock()
    let store = InMemoryBondStore()
    let security: SecurityManager
    let agent: DaemonPairingAgent
    let centrals = CentralRegistry(services: [])
    let control: SecurityControl

    init(settings: SecuritySettings = SecuritySettings(), bonds: [Bond] = [phone, laptop]) async throws {
        for bond in bonds { try await store.saveBond(bond, gattState: .empty, replacing: nil) }
        security = SecurityManager(configuration: SecurityManager.Configuration(), store: store, clock: clock,
                                   localAddress: { _ in DeviceAddress(BluetoothAddress("C0:11:22:33:44:55")!, type: .randomDevice) },
                                   send: { _, _ in })
        try await security.start()
        agent = DaemonPairingAgent(settings: settings, clock: clock, logger: Logger(label: "test"))
        control = SecurityControl(security: security, agent: agent, centrals: centrals)
    }

    /// A central connected from a resolvable private address that resolved to `identity`.
    func connect(_ identity: DeviceAddress, bonded: Bool) -> ConnectedCentral {
        let link = Link(handle: 0x40, role: .peripheral, peer: DeviceAddress(BluetoothAddress("4A:00:00:00:00:01")!, type: .randomDevice),
                        parameters: .init(interval: 24, latency: 0, supervisionTimeout: 400))
        link.setIdentity(DeviceAddress(identity.address, type: identity.type == .publicDevice ? .publicIdentity : .randomIdentity))
        link.setBonded(bonded)
        security.linkOpened(link)
        let central = ConnectedCentral(link: link)
        centrals.connected(central)
        return central
    }

    static func settings(_ pairing: SecuritySettings.Pairing, io: SecuritySettings.IOCapabilitySetting = .noInputNoOutput,
                         passkey: SecuritySettings.Passkey = .random) -> SecuritySettings {
        var settings = SecuritySettings()
        settings.pairing = pairing
        settings.ioCapability = io
        settings.passkey = passkey
        return settings
    }
}

@Suite struct SecurityControlTests {
    @Test func bondsAreListedNewestFirstWithWhatTheyAreWorthAndWhetherConnected() async throws {
        let fixture = try await SecurityFixture()
        _ = fixture.connect(SecurityFixture.phoneIdentity, bonded: true)
        let bonds = try fixture.control.bonds().get()
        #expect(bonds == [
            BondStatus(address: "C4:5B:6C:7D:8E:9F", addressType: "random", keySize: 16, authenticated: true, secureConnections: true,
                       hasIRK: true, createdAt: SecurityFixture.created, lastSeen: SecurityFixture.created + 60, connected: true),
            BondStatus(address: "00:1A:7D:DA:71:13", addressType: "public", keySize: 16, authenticated: false, secureConnections: false,
                       hasIRK: false, createdAt: SecurityFixture.created, lastSeen: SecurityFixture.created + 30, connected: false),
        ])
        #expect(fixture.control.bondIdentities == ["C4:5B:6C:7D:8E:9F (random)", "00:1A:7D:DA:71:13 (public)"])
    }

    @Test func centralsReportBondedLevelAndKeySize() async throws {
        let fixture = try await SecurityFixture()
        _ = fixture.connect(SecurityFixture.phoneIdentity, bonded: true)
        let status = try #require(fixture.centrals.statuses(statistics: nil).first)
        #expect(status.bonded == true)
        #expect(status.securityLevel == "none" && status.security == "none")
        #expect(status.keySize == 0)
    }

    @Test func removingABondForgetsItInTheStoreAndTheCache() async throws {
        let fixture = try await SecurityFixture()
        let central = fixture.connect(SecurityFixture.phoneIdentity, bonded: true)
        let removed = try await fixture.control.removeBond(BondAddress(address: "C4:5B:6C:7D:8E:9F", kind: nil)).get()
        #expect(removed.identity == "C4:5B:6C:7D:8E:9F (random)" && removed.connected)
        #expect(await fixture.store.bond(for: SecurityFixture.phoneIdentity) == nil)
        #expect(fixture.security.bonds.map(\.identity) == [SecurityFixture.laptopIdentity])
        // The connected central is no longer treated as bonded.
        #expect(!central.link.isBonded)

        let again = await fixture.control.removeBond(BondAddress(address: "C4:5B:6C:7D:8E:9F", kind: .random))
        #expect(again == .failure(.notBonded(BondAddress(address: "C4:5B:6C:7D:8E:9F", kind: .random))))
        #expect(SecurityControlError.notBonded(BondAddress(address: "C4:5B:6C:7D:8E:9F", kind: .random)).description
            == "no bond with C4:5B:6C:7D:8E:9F (random); `blesensor bonds list` shows the bonded centrals")
    }

    @Test func anAddressNamingTwoBondsNeedsItsType() async throws {
        let fixture = try await SecurityFixture(bonds: [SecurityFixture.laptop, SecurityFixture.twin])
        let bare = BondAddress(address: "00:1A:7D:DA:71:13", kind: nil)
        let ambiguous = await fixture.control.removeBond(bare)
        #expect(ambiguous == .failure(.ambiguous(bare, ["00:1A:7D:DA:71:13 (public)", "00:1A:7D:DA:71:13 (random)"])))
        #expect(SecurityControlError.ambiguous(bare, ["00:1A:7D:DA:71:13 (public)", "00:1A:7D:DA:71:13 (random)"]).description
            == "00:1A:7D:DA:71:13 names 2 bonds (00:1A:7D:DA:71:13 (public), 00:1A:7D:DA:71:13 (random)); add --type public or --type random")
        #expect(fixture.security.bonds.count == 2)

        let removed = try await fixture.control.removeBond(BondAddress(address: "00:1A:7D:DA:71:13", kind: .public)).get()
        #expect(removed.addressType == "public")
        #expect(fixture.security.bonds.map(\.identity) == [SecurityFixture.twinIdentity])
    }

    @Test func aWindowOpensForTheSecondsAskedAndCloses() async throws {
        let fixture = try await SecurityFixture(settings: SecurityFixture.settings(.window, io: .displayOnly, passkey: .fixed(123)))
        // Status never carries the passkey; an administrator's `pairing` request does.
        #expect(fixture.control.pairing == PairingStatus(mode: .window, windowRemainingSeconds: nil, passkeyMode: .fixed, passkey: nil))
        #expect(fixture.control.pairingWithPasskey() == .success(PairingStatus(mode: .window, windowRemainingSeconds: nil, passkeyMode: .fixed, passkey: "000123")))
        let opened = try fixture.control.openPairingWindow(seconds: 60).get()
        #expect(opened.windowRemainingSeconds == 60)
        #expect(fixture.agent.pairingAllowed)
        fixture.clock.advance(by: .seconds(45))
        #expect(fixture.control.pairing?.windowRemainingSeconds == 15)
        fixture.clock.advance(by: .seconds(15))
        #expect(fixture.control.pairing?.windowRemainingSeconds == nil)
        #expect(!fixture.agent.pairingAllowed)
    }

    @Test func alwaysNeedsNoWindowAndNeverRefusesOne() async throws {
        let always = try await SecurityFixture(settings: SecurityFixture.settings(.always, io: .keyboardDisplay))
        #expect(always.control.openPairingWindow(seconds: 60)
            == .success(PairingStatus(mode: .always, windowRemainingSeconds: nil, passkeyMode: .random, passkey: nil)))
        #expect(always.agent.windowRemaining == nil)

        let never = try await SecurityFixture(settings: SecurityFixture.settings(.never))
        #expect(never.control.openPairingWindow(seconds: 60) == .failure(.pairingNever))
        #expect(never.agent.windowRemaining == nil)
        #expect(SecurityControlError.pairingNever.failure.message.contains("set security.pairing to window"))
        #expect(never.control.pairing == PairingStatus(mode: .never, windowRemainingSeconds: nil, passkeyMode: .none, passkey: nil))

        #expect(always.control.openPairingWindow(seconds: 0) == .failure(.invalidWindow(0)))
    }

    @Test func withoutASecurityManagerEveryRequestSaysSo() async throws {
        let fixture = try await SecurityFixture()
        let control = SecurityControl(security: nil, agent: fixture.agent, centrals: fixture.centrals)
        #expect(control.bonds() == .failure(.securityDisabled))
        #expect(await control.removeBond(BondAddress(address: "00:1A:7D:DA:71:13", kind: nil)) == .failure(.securityDisabled))
        #expect(control.openPairingWindow(seconds: 60) == .failure(.securityDisabled))
        #expect(control.bondIdentities == nil && control.pairing == nil)
        #expect(SecurityControlError.securityDisabled.description
            == "this blesensord runs without a Security Manager, so it has no bonds and no pairing")
    }

    @Test func storeFailuresSayNothingWasRemoved() {
        #expect(SecurityControlError.store(.databaseFailure("disk I/O error")).description
            == "the bond was not removed: bond database failure: disk I/O error")
    }
}
