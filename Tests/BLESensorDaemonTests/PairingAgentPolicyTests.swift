import BLECore
import BridgeConfiguration
import ControlSocket
import Foundation
@testable import HCI
import Logging
import SMP
import Synchronization
import Testing
import TestSupport
@testable import BLESensorDaemon

/// The daemon's pairing policy as an attacker meets it: new centrals are slowed down with
/// `pairing: always`, and with `pairing: window` the window at start closes by itself.
@Suite struct PairingAgentPolicyTests {
    static let request = PairingFeatures(ioCapability: .noInputNoOutput, authentication: [.bonding, .secureConnections],
                                         maxKeySize: 16, initiatorKeys: [.identityKey], responderKeys: [.identityKey])

    static func link(_ last: UInt8, bonded: Bool = false, encrypted: Bool = false) -> Link {
        let link = Link(handle: UInt16(last), role: .peripheral,
                        peer: DeviceAddress(BluetoothAddress(littleEndian: [last, 0, 0, 0, 0, 0x4A]), type: .randomDevice),
                        parameters: .init(interval: 24, latency: 0, supervisionTimeout: 400))
        link.setBonded(bonded)
        if encrypted {
            link.expectEncryption(with: EncryptionKeyProperties(keySize: 16, authenticated: false, secureConnections: true))
            _ = link.encryptionChanged(enabled: true, controllerKeySize: 16)
        }
        return link
    }

    @Test func newCentralsArePacedFromTheLastBondWhilePairingIsAlwaysAllowed() async {
        let clock = ManualClock()
        let agent = DaemonPairingAgent(settings: SecuritySettings(), clock: clock, logger: Logger(label: "test"))
        #expect(await agent.mayPair(Self.link(1), request: Self.request) == .allow)
        // A request that never becomes a bond holds no one back.
        #expect(await agent.mayPair(Self.link(2), request: Self.request) == .allow)
        agent.bondStored()
        // Rotating addresses do not help: the next new central waits.
        guard case let .refuse(reason, because) = await agent.mayPair(Self.link(3), request: Self.request) else {
            Issue.record("a second new central was let in at once")
            return
        }
        #expect(reason == .repeatedAttempts && because.contains("new-centrals-every"))
        // Claiming a bonded address is not enough to skip the queue ...
        guard case .refuse(.repeatedAttempts, _) = await agent.mayPair(Self.link(4, bonded: true), request: Self.request) else {
            Issue.record("an unproven bonded address skipped the pacing")
            return
        }
        // ... encrypting with the bond's key is.
        #expect(await agent.mayPair(Self.link(5, bonded: true, encrypted: true), request: Self.request) == .allow)
        clock.advance(by: SecuritySettings().newCentralsEvery)
        #expect(await agent.mayPair(Self.link(6), request: Self.request) == .allow)
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

    /// A comparison is authenticated only when a person answered, through confirm-command.
    @Test func aComparisonIsConfirmedByAPersonOnlyThroughTheConfirmCommand() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("confirm-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        func script(_ name: String, _ body: String) throws -> String {
            let path = directory.appendingPathComponent(name).path
            try "#!/bin/sh\n\(body)\n".write(toFile: path, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
            return path
        }
        let asked = directory.appendingPathComponent("asked").path
        let yes = try script("yes", "echo \"$1 $2\" > \(asked)")
        let no = try script("no", "echo 'the numbers differ' >&2; exit 1")
        var settings = SecuritySettings()
        settings.ioCapability = .keyboardDisplay
        let link = Self.link(7)
        let nobody = DaemonPairingAgent(settings: settings, clock: ManualClock(), logger: Logger(label: "test"))
        #expect(await nobody.confirm(numericComparison: 42, on: link) == .acceptedWithoutComparing)

        settings.confirmCommand = yes
        let person = DaemonPairingAgent(settings: settings, clock: ManualClock(), logger: Logger(label: "test"))
        #expect(await person.confirm(numericComparison: 42, on: link) == .confirmedByPerson)
        #expect(try String(contentsOfFile: asked, encoding: .utf8) == "000042 \(link.peer.address)\n")

        settings.confirmCommand = no
        let refusing = DaemonPairingAgent(settings: settings, clock: ManualClock(), logger: Logger(label: "test"))
        #expect(await refusing.confirm(numericComparison: 42, on: link) == .rejected)
        settings.confirmCommand = directory.appendingPathComponent("missing").path
        let missing = DaemonPairingAgent(settings: settings, clock: ManualClock(), logger: Logger(label: "test"))
        #expect(await missing.confirm(numericComparison: 42, on: link) == .rejected)

        // Outside a pairing window nothing is confirmed, by anyone.
        settings.confirmCommand = yes
        settings.pairing = .window
        let closed = DaemonPairingAgent(settings: settings, clock: ManualClock(), logger: Logger(label: "test"))
        #expect(await closed.confirm(numericComparison: 42, on: link) == .rejected)
    }
}

/// What `blesensor pair --follow` hears from the agent: windows opening and closing, passkeys and
/// numbers to compare, on the injected clock.
@Suite struct PairingAgentEventTests {
    final class Heard: Sendable {
        let events = Mutex<[PairingEvent]>([])
        var all: [PairingEvent] { events.withLock { $0 } }
    }

    @Test func windowsOpenAndCloseOnceEvenWhenExtended() {
        let clock = ManualClock(), heard = Heard()
        var settings = SecuritySettings()
        settings.pairing = .window
        let agent = DaemonPairingAgent(settings: settings, clock: clock, logger: Logger(label: "test"))
        agent.setObserver { event in heard.events.withLock { $0.append(event) } }
        _ = agent.openWindow(for: .seconds(60))
        clock.advance(by: .seconds(30))
        _ = agent.openWindow(for: .seconds(60))
        clock.advance(by: .seconds(59))
        #expect(heard.all == [PairingEvent(kind: .windowOpened, detail: "60 s"), PairingEvent(kind: .windowOpened, detail: "60 s")])
        clock.advance(by: .seconds(1))
        #expect(heard.all.last == PairingEvent(kind: .windowClosed))
        #expect(heard.all.count { $0.kind == .windowClosed } == 1)
    }

    @Test func passkeysAndComparisonsAreHeardWithTheirPeer() async {
        let heard = Heard()
        var settings = SecuritySettings()
        settings.pairing = .always
        let agent = DaemonPairingAgent(settings: settings, clock: ManualClock(), logger: Logger(label: "test"))
        agent.setObserver { event in heard.events.withLock { $0.append(event) } }
        let link = PairingAgentPolicyTests.link(7)
        await agent.display(passkey: 4711, on: link)
        _ = await agent.confirm(numericComparison: 123456, on: link)
        #expect(heard.all.map(\.kind) == [.passkey, .comparison])
        #expect(heard.all.first?.passkey == "004711" && heard.all.first?.peer == "\(link.peer)")
        #expect(heard.all.last?.number == "123456")
        #expect(heard.all.last?.detail?.contains("no one comparing") == true)
    }
}
