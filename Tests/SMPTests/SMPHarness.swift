import BLECore
import Bonding
import HCI
import SecurityToolbox
import Synchronization
import TestSupport
import Testing
@testable import SMP

/// A security manager on a ManualClock with an in-memory store, one link from `central`, and every
/// PDU it sends recorded: tests play the central byte by byte.
final class SMPHarness: Sendable {
    static let ours = DeviceAddress(BluetoothAddress("00:1B:DC:07:32:EF")!, type: .publicDevice)
    static let central = DeviceAddress(BluetoothAddress("C0:11:22:33:44:55")!, type: .randomDevice)

    let clock = ManualClock()
    let store: InMemoryBondStore
    let sent = Recorder<[UInt8]>()
    let events = Recorder<SecurityEvent>()
    let agent: TestAgent
    let manager: SecurityManager
    let link: Link

    init(peer: DeviceAddress = SMPHarness.central, store: InMemoryBondStore = InMemoryBondStore(), agent: TestAgent = TestAgent(),
         fixedKeyPair: SecureConnectionsKeyPair? = nil,
         configure: (inout SecurityManager.Configuration) -> Void = { _ in }) async throws {
        var configuration = SecurityManager.Configuration()
        configure(&configuration)
        self.store = store
        self.agent = agent
        let sent = sent
        manager = SecurityManager(configuration: configuration, store: store, agent: agent, clock: clock,
                                  localAddress: { _ in SMPHarness.ours }, send: { _, pdu in sent.append(pdu) },
                                  makeKeyPair: { fixedKeyPair ?? SecureConnectionsKeyPair() })
        try await manager.start()
        let events = events, stream = manager.events
        Task { for await event in stream { events.append(event) } }
        link = Link(handle: 0x40, role: .peripheral, peer: peer, parameters: .init(interval: 24, latency: 0, supervisionTimeout: 400))
        manager.linkOpened(link)
    }

    /// Feeds one PDU and returns the next `count` PDUs the manager sends in answer.
    func exchange(_ pdu: [UInt8], expecting count: Int = 1) async -> [[UInt8]] {
        let before = sent.all.count
        manager.receive(pdu, on: link)
        await sent.wait(for: before + count)
        return Array(sent.all[before..<(before + count)])
    }

    func feed(_ pdu: [UInt8]) { manager.receive(pdu, on: link) }

    /// A further link to the same manager, from `peer` (a central rotating its address).
    func openLink(from peer: DeviceAddress, handle: UInt16) -> Link {
        let other = Link(handle: handle, role: .peripheral, peer: peer, parameters: .init(interval: 24, latency: 0, supervisionTimeout: 400))
        manager.linkOpened(other)
        return other
    }

    func exchange(_ pdu: [UInt8], on other: Link, expecting count: Int = 1) async -> [[UInt8]] {
        let before = sent.all.count
        manager.receive(pdu, on: other)
        await sent.wait(for: before + count)
        return Array(sent.all[before..<(before + count)])
    }

    var lastSent: [UInt8]? { sent.all.last }

    func waitForEvent(_ match: @escaping @Sendable (SecurityEvent) -> Bool) async -> SecurityEvent? {
        await events.wait(where: match)
        return events.all.first(where: match)
    }

    func failure() async -> (PairingFailureReason, String)? {
        guard case let .pairingFailed(_, reason, detail)? = await waitForEvent({ if case .pairingFailed = $0 { return true }; return false })
        else { return nil }
        return (reason, detail)
    }

    /// The pairing's outcome: nil when it failed instead (so a broken pairing fails the test rather than hanging it).
    func paired() async -> (PairingResult, Bool)? {
        let outcome = await waitForEvent { event in
            switch event {
            case .paired, .pairingFailed: return true
            default: return false
            }
        }
        guard case let .paired(_, result, bonded)? = outcome else {
            Issue.record("pairing did not complete: \(String(describing: outcome))")
            return nil
        }
        return (result, bonded)
    }
}

/// An agent whose answers the test sets; it records what it was shown.
final class TestAgent: PairingAgent {
    struct State {
        var decision = PairingDecision.allow
        var typedPasskey: UInt32? = nil
        var comparisonAnswer = ComparisonAnswer.confirmedByPerson
        var displayed: [UInt32] = []
        var compared: [UInt32] = []
    }
    let state = Mutex(State())

    init(_ configure: (inout State) -> Void = { _ in }) { state.withLock { configure(&$0) } }

    func mayPair(_ link: Link, request: PairingFeatures) async -> PairingDecision { state.withLock { $0.decision } }
    func display(passkey: UInt32, on link: Link) async { state.withLock { $0.displayed.append(passkey) } }
    func enterPasskey(on link: Link) async -> UInt32? { state.withLock { $0.typedPasskey } }
    func confirm(numericComparison value: UInt32, on link: Link) async -> ComparisonAnswer {
        state.withLock { $0.compared.append(value); return $0.comparisonAnswer }
    }
}
