import BLECore
import BridgeConfiguration
import HCI
import Logging
import SMP
import Testing
import TestSupport
@testable import BLESensorDaemon

/// The daemon's pairing policy as an attacker meets it: new centrals are slowed down with
/// `pairing: always`, and with `pairing: window` the window at start closes by itself.
@Suite struct PairingAgentPolicyTests {
    static let request = PairingFeatures(ioCapability: .noInputNoOutput, authentication: [.bonding, .secureConnections],
                                         maxKeySize: 16, initiatorKeys: [.identityKey], responderKeys: [.identityKey])

    static func link(_ last: UInt8, bonded: Bool = false) -> Link {
        let link = Link(handle: UInt16(last), role: .peripheral,
                        peer: DeviceAddress(BluetoothAddress(littleEndian: [last, 0, 0, 0, 0, 0x4A]), type: .randomDevice),
                        parameters: .init(interval: 24, latency: 0, supervisionTimeout: 400))
        link.setBonded(bonded)
        return link
    }

    @Test func newCentralsArePacedWhilePairingIsAlwaysAllowed() async {
        let clock = ManualClock()
        let agent = DaemonPairingAgent(settings: SecuritySettings(), clock: clock, logger: Logger(label: "test"))
        #expect(await agent.mayPair(Self.link(1), request: Self.request) == .allow)
        // Rotating addresses do not help: the next new central waits.
        guard case let .refuse(reason, because) = await agent.mayPair(Self.link(2), request: Self.request) else {
            Issue.record("a second new central was let in at once")
            return
        }
        #expect(reason == .repeatedAttempts && because.contains("new-centrals-every"))
        // A bonded central is never held back.
        #expect(await agent.mayPair(Self.link(3, bonded: true), request: Self.request) == .allow)
        clock.advance(by: SecuritySettings().newCentralsEvery)
        #expect(await agent.mayPair(Self.link(4), request: Self.request) == .allow)
    }

    @Test func aWindowOpenedAtStartClosesByItself() async {
        let clock = ManualClock()
        var settings = SecuritySettings()
        settings.pairing = .window
        let agent = DaemonPairingAgent(settings: settings, clock: clock, logger: Logger(label: "test"))
        _ = agent.openWindow(for: .seconds(300))
        #expect(await agent.mayPair(Self.link(1), request: Self.request) == .allow)
        #expect(await agent.mayPair(Self.link(2), request: Self.request) == .allow)
        clock.advance(by: .seconds(300))
        guard case .refuse(.pairingNotSupported, _) = await agent.mayPair(Self.link(3), request: Self.request) else {
            Issue.record("pairing allowed after the window closed")
            return
        }
    }
}
