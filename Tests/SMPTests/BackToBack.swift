import BLECore
import Bonding
import HCI
import SecurityToolbox
import Synchronization
import TestSupport
import Testing
@testable import SMP

/// Our initiator against our responder: two security managers on one ManualClock, SMP PDUs carried
/// across in order on one "air" queue, and a fake controller that turns the central's
/// `startEncryption` into the peripheral's LTK lookup and reports Encryption Change to both.
final class BackToBack: Sendable {
    static let centralAddress = DeviceAddress(BluetoothAddress("C1:00:00:00:00:01")!, type: .randomDevice)
    static let peripheralAddress = DeviceAddress(BluetoothAddress("C2:00:00:00:00:02")!, type: .randomDevice)

    struct Wiring {
        var central: SecurityManager?
        var peripheral: SecurityManager?
        /// Each link's other end.
        var counterpart: [LinkID: Link] = [:]
        /// PDUs that vanish on the air (the timeout test), by the sender's role.
        var dropFromPeripheral = false
        /// A PDU the peripheral sends instead of its next one (malformed-input tests).
        var replaceNextFromPeripheral: (match: UInt8, with: [UInt8])?
    }

    let clock = ManualClock()
    let centralStore = InMemoryBondStore()
    let peripheralStore = InMemoryBondStore()
    let centralAgent: TestAgent
    let peripheralAgent: TestAgent
    let central: SecurityManager
    let peripheral: SecurityManager
    let centralEvents = Recorder<SecurityEvent>()
    let peripheralEvents = Recorder<SecurityEvent>()
    /// Every PDU as sent: (sent by the central, bytes).
    let wire = Recorder<(fromCentral: Bool, pdu: [UInt8])>()
    /// Encryptions the central started: (key, rand, ediv).
    let encryptions = Recorder<([UInt8], UInt64, UInt16)>()
    final class WiringBox: Sendable { let state = Mutex(Wiring()) }
    let wiring = WiringBox()
    private let air: AsyncStream<@Sendable () -> Void>.Continuation

    init(centralAgent: TestAgent = TestAgent(), peripheralAgent: TestAgent = TestAgent(), centralBonds: [Bond] = [],
         centralPolicy: (inout SecurityManager.Configuration) -> Void = { _ in },
         peripheralPolicy: (inout SecurityManager.Configuration) -> Void = { _ in }) async throws {
        self.centralAgent = centralAgent
        self.peripheralAgent = peripheralAgent
        let (stream, air) = AsyncStream.makeStream(of: (@Sendable () -> Void).self)
        self.air = air
        Task { for await job in stream { job() } }
        var centralConfiguration = SecurityManager.Configuration(), peripheralConfiguration = SecurityManager.Configuration()
        centralPolicy(&centralConfiguration)
        peripheralPolicy(&peripheralConfiguration)
        let wiring = wiring, wire = wire, encryptions = encryptions
        peripheral = SecurityManager(
            configuration: peripheralConfiguration, store: peripheralStore, agent: peripheralAgent, clock: clock,
            localAddress: { _ in BackToBack.peripheralAddress },
            send: { link, pdu in BackToBack.carry(pdu, from: link, wiring: wiring, wire: wire, air: air) })
        central = SecurityManager(
            configuration: centralConfiguration, store: centralStore, agent: centralAgent, clock: clock,
            localAddress: { _ in BackToBack.centralAddress },
            send: { link, pdu in BackToBack.carry(pdu, from: link, wiring: wiring, wire: wire, air: air) },
            startEncryption: { link, key, random, ediv, _ in
                encryptions.append((key, random, ediv))
                air.yield { BackToBack.controllerEncrypts(link, key: key, random: random, ediv: ediv, wiring: wiring) }
            })
        wiring.state.withLock { $0.central = central; $0.peripheral = peripheral }
        for bond in centralBonds { try await centralStore.saveBond(bond, gattState: .empty, replacing: nil) }
        try await central.start()
        try await peripheral.start()
        for (manager, recorder) in [(central, centralEvents), (peripheral, peripheralEvents)] {
            let events = manager.events
            Task { for await event in events { recorder.append(event) } }
        }
    }

    /// A new connection: a pair of links with new LinkIDs, opened on both managers.
    func connect() -> (central: Link, peripheral: Link) {
        let parameters = Link.Parameters(interval: 24, latency: 0, supervisionTimeout: 400)
        let c = Link(handle: 0x40, role: .central, peer: Self.peripheralAddress, parameters: parameters)
        let p = Link(handle: 0x41, role: .peripheral, peer: Self.centralAddress, parameters: parameters)
        wiring.state.withLock { $0.counterpart[c.id] = p; $0.counterpart[p.id] = c }
        central.linkOpened(c)
        peripheral.linkOpened(p)
        return (c, p)
    }

    static func carry(_ pdu: [UInt8], from link: Link, wiring: WiringBox, wire: Recorder<(fromCentral: Bool, pdu: [UInt8])>,
                      air: AsyncStream<@Sendable () -> Void>.Continuation) {
        let fromCentral = link.role == .central
        let (target, other, sent) = wiring.state.withLock { state -> (SecurityManager?, Link?, [UInt8]?) in
            var sent: [UInt8]? = pdu
            if !fromCentral {
                if state.dropFromPeripheral { sent = nil }
                if let replace = state.replaceNextFromPeripheral, pdu.first == replace.match {
                    sent = replace.with
                    state.replaceNextFromPeripheral = nil
                }
            }
            return (fromCentral ? state.peripheral : state.central, state.counterpart[link.id], sent)
        }
        guard let target, let other, let sent else { return }
        wire.append((fromCentral, sent))
        air.yield { target.receive(sent, on: other) }
    }

    /// What two controllers do for LE Enable Encryption: the peripheral's host supplies the LTK for
    /// (Rand, EDIV); none is PIN or Key Missing, another key fails the MIC check.
    static func controllerEncrypts(_ link: Link, key: [UInt8], random: UInt64, ediv: UInt16, wiring: WiringBox) {
        let (central, peripheral, other) = wiring.state.withLock { ($0.central, $0.peripheral, $0.counterpart[link.id]) }
        guard let central, let peripheral, let other else { return }
        var status = HCIStatus.success
        if let answer = peripheral.longTermKey(for: other, random: random, ediv: ediv) {
            if answer.key != key { status = HCIStatus(rawValue: 0x3D) }
        } else {
            status = .pinOrKeyMissing
        }
        peripheral.encryptionChanged(on: other, status: status)
        central.encryptionChanged(on: link, status: status)
    }

    // MARK: Waiting

    static func failure(in recorder: Recorder<SecurityEvent>) async -> PairingFailureReason? {
        let isFailure: @Sendable (SecurityEvent) -> Bool = { if case .pairingFailed = $0 { return true }; return false }
        await recorder.wait(where: isFailure)
        guard case let .pairingFailed(_, reason, _)? = recorder.all.first(where: isFailure) else { return nil }
        return reason
    }

    /// The peripheral's outcome (its `.paired` event comes after its bond is stored).
    func peripheralPaired() async -> (PairingResult, Bool)? {
        let done: @Sendable (SecurityEvent) -> Bool = {
            switch $0 { case .paired, .pairingFailed: return true; default: return false }
        }
        await peripheralEvents.wait(where: done)
        guard case let .paired(_, result, bonded)? = peripheralEvents.all.first(where: done) else { return nil }
        return (result, bonded)
    }

    /// The PDU codes each side sent, in order.
    func codes(fromCentral: Bool) -> [UInt8] { wire.all.filter { $0.fromCentral == fromCentral }.compactMap { $0.pdu.first } }
}
