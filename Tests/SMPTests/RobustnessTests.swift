import BLECore
import Foundation
import Bonding
import HCI
import SecurityToolbox
import Testing
import TestSupport
@testable import SMP

/// Malformed, out-of-order, repeated and oversized PDUs end in Pairing Failed, never a crash or a
/// stuck state; timeouts and back-off run in virtual time.
@Suite(.scaledTimeLimit(minutes: 1)) struct RobustnessTests {
    static let badPDUs: [([UInt8], UInt8)] = [
        ([], 0x07),                                  // empty: command not supported
        ([0x42], 0x07),                                            // unknown code
        ([0x01, 0x03, 0x00], 0x0A),                                // short Pairing Request
        ([0x01, 0x03, 0x00, 0x09, 0x10, 0x06, 0x07, 0x00], 0x0A),  // oversized Pairing Request
        ([0x01, 0x09, 0x00, 0x09, 0x10, 0x06, 0x07], 0x0A),        // reserved IO capability
        ([0x01, 0x03, 0x02, 0x09, 0x10, 0x06, 0x07], 0x0A),        // reserved OOB flag
        ([0x01, 0x03, 0x00, 0x09, 0x06, 0x06, 0x07], 0x0A),        // key size 6
        ([0x01, 0x03, 0x00, 0x09, 0x11, 0x06, 0x07], 0x0A),        // key size 17
        ([0x04] + [UInt8](repeating: 0, count: 16), 0x08),         // Pairing Random with no pairing
        ([0x0C] + [UInt8](repeating: 0, count: 63), 0x0A),         // short public key
        ([0x02, 0x03, 0x00, 0x09, 0x10, 0x06, 0x07], 0x07),        // a Pairing Response is for the central
    ]

    @Test(arguments: badPDUs)
    func badInputIsAnsweredWithPairingFailed(pdu: [UInt8], reason: UInt8) async throws {
        let harness = try await SMPHarness()
        #expect(await harness.exchange(pdu).first == [0x05, reason])
        // Still usable: a good pairing request right after is answered.
        #expect(await harness.exchange(TestInitiator().preq).first?.first == 0x02)
    }

    @Test func outOfOrderAndRepeatedCommandsFailThePairing() async throws {
        let harness = try await SMPHarness()
        let central = TestInitiator()
        _ = await harness.exchange(central.preq)
        // DHKey Check before the public key.
        #expect(await harness.exchange([0x0D] + [UInt8](repeating: 1, count: 16)).first == [0x05, 0x08])
        #expect(await harness.failure()?.0 == .unspecifiedReason)

        let again = try await SMPHarness()
        _ = await again.exchange(central.preq)
        _ = await again.exchange(central.publicKeyPDU, expecting: 2)
        // The same public key twice.
        #expect(await again.exchange(central.publicKeyPDU).first == [0x05, 0x08])
    }

    @Test func theCentralsPairingFailedEndsThePairingWithoutAnAnswer() async throws {
        let harness = try await SMPHarness()
        _ = await harness.exchange(TestInitiator().preq)
        let count = harness.sent.all.count
        harness.feed([0x05, 0x0C])
        #expect(await harness.failure()?.0 == .numericComparisonFailed)
        #expect(harness.sent.all.count == count)
    }

    @Test func theSMPTimeoutEndsPairingAndSilencesTheLink() async throws {
        let harness = try await SMPHarness()
        _ = await harness.exchange(TestInitiator().preq)
        harness.clock.advance(by: .seconds(29))
        #expect(harness.events.all.isEmpty || !harness.events.all.contains { if case .pairingFailed = $0 { return true }; return false })
        harness.clock.advance(by: .seconds(1))
        #expect(await harness.failure()?.1 == "SMP timeout")
        // No SMP on this link any more (Vol 3 Part H 3.4), not even Pairing Failed.
        let count = harness.sent.all.count
        harness.feed(TestInitiator().preq)
        harness.feed([0x42])
        #expect(harness.sent.all.count == count)
    }

    /// A link's state lives from `linkOpened` to `linkClosed` only: a PDU that arrives after the
    /// close (a late packet of the old connection) neither gets an answer nor leaves state behind.
    @Test func smpOnAClosedLinkIsDroppedAndLeavesNoState() async throws {
        let harness = try await SMPHarness()
        _ = await harness.exchange(TestInitiator().preq)
        harness.manager.linkClosed(harness.link)
        #expect(await harness.failure()?.1 == "the link closed during pairing")
        let count = harness.sent.all.count
        harness.feed(TestInitiator().preq)
        harness.feed([0x42])
        // A barrier: another link's request is answered, so the closed link's were handled before.
        let other = harness.openLink(from: DeviceAddress(BluetoothAddress("C0:11:22:33:44:66")!, type: .randomDevice), handle: 0x41)
        #expect(await harness.exchange(TestInitiator().preq, on: other).first?.first == 0x02)
        #expect(harness.sent.all.count == count + 1)
        #expect(harness.manager.state.withLock { Array($0.links.keys) } == [other.id])
        // Never opened at all: the same.
        let stranger = Link(handle: 0x42, role: .peripheral, peer: SMPHarness.central, parameters: .init(interval: 24, latency: 0, supervisionTimeout: 400))
        harness.manager.receive(TestInitiator().preq, on: stranger)
        #expect(await harness.exchange([0x42], on: other).first == [0x05, 0x07])
        #expect(harness.sent.all.count == count + 2)
        #expect(harness.manager.state.withLock { $0.links.count } == 1)
    }

    @Test func repeatedAttemptsWaitLongerAfterEachFailure() async throws {
        let harness = try await SMPHarness()
        let central = TestInitiator(auth: [.bonding])
        func failOnce() async {
            _ = await harness.exchange(central.preq)
            _ = await harness.exchange([0x03] + [UInt8](repeating: 7, count: 16))
            #expect(await harness.exchange([0x04] + central.mrand).first == [0x05, 0x04])
        }
        await failOnce()
        #expect(await harness.exchange(central.preq).first == [0x05, 0x09])
        harness.clock.advance(by: .seconds(2))
        await failOnce()
        // The second failure doubles the wait: 2 s is not enough, 4 s is.
        harness.clock.advance(by: .seconds(2))
        #expect(await harness.exchange(central.preq).first == [0x05, 0x09])
        harness.clock.advance(by: .seconds(2))
        #expect(await harness.exchange(central.preq).first?.first == 0x02)
    }

    @Test func theAgentCanRefuseOutsideAPairingWindow() async throws {
        let agent = TestAgent { $0.decision = .refuse(.pairingNotSupported, because: "the pairing window is closed") }
        let harness = try await SMPHarness(agent: agent)
        #expect(await harness.exchange(TestInitiator().preq).first == [0x05, 0x05])
        #expect(await harness.failure()?.1 == "the pairing window is closed")
    }

    @Test func aBondedCentralBehindAResolvablePrivateAddressIsRecognised() async throws {
        let store = InMemoryBondStore()
        let irk = SecureRandom.bytes(16)
        let identity = DeviceAddress(BluetoothAddress("00:AA:BB:CC:DD:EE")!, type: .publicDevice)
        let ltk = LongTermKeyRecord(key: Key128(SecureRandom.bytes(16))!, ediv: 0, rand: 0, keySize: 16, authenticated: false, secureConnections: true)
        let bond = Bond(identity: identity, ltk: ltk, peerLTK: nil, peerIRK: Key128(irk), peerCSRK: nil, peerSignCounter: nil,
                        localCSRK: nil, localSignCounter: 0, createdAt: Date(timeIntervalSince1970: 0), lastSeen: Date(timeIntervalSince1970: 0))
        try await store.saveBond(bond, gattState: .empty, replacing: nil)
        let rpa = DeviceAddress(try ResolvablePrivateAddress.make(irk: irk), type: .randomDevice)
        let harness = try await SMPHarness(peer: rpa, store: store)
        #expect(harness.link.identity == identity && harness.link.isBonded)
        #expect(harness.manager.longTermKey(for: harness.link, random: 0, ediv: 0)?.key == ltk.key.bytes)

        // Another private address that no IRK resolves is a stranger.
        let stranger = try await SMPHarness(peer: DeviceAddress(try ResolvablePrivateAddress.make(irk: SecureRandom.bytes(16)), type: .randomDevice), store: store)
        #expect(!stranger.link.isBonded)
        #expect(stranger.manager.longTermKey(for: stranger.link, random: 0, ediv: 0) == nil)
    }

    @Test func aSecurityRequestGoesOutOnConnectionWhenConfigured() async throws {
        let harness = try await SMPHarness { $0.sendSecurityRequest = true; $0.policy.ioCapability = .displayOnly }
        await harness.sent.wait(for: 1)
        #expect(harness.sent.all.first == [0x0B, 0x0D])
    }
}

/// Signed writes from a bonded client: its CSRK verifies, a replayed counter does not.
@Suite(.scaledTimeLimit(minutes: 1)) struct SignedWriteTests {
    @Test func aBondedClientsSignatureVerifiesOnceAndAReplayIsRefused() async throws {
        let store = InMemoryBondStore()
        let csrk = SecureRandom.bytes(16)
        let identity = SMPHarness.central
        let ltk = LongTermKeyRecord(key: Key128(SecureRandom.bytes(16))!, ediv: 0, rand: 0, keySize: 16, authenticated: false, secureConnections: true)
        try await store.saveBond(Bond(identity: identity, ltk: ltk, peerLTK: nil, peerIRK: nil, peerCSRK: Key128(csrk), peerSignCounter: nil,
                                      localCSRK: nil, localSignCounter: 0, createdAt: Date(), lastSeen: Date()),
                                 gattState: .empty, replacing: nil)
        let harness = try await SMPHarness(store: store)
        let pdu: [UInt8] = [0xD2, 0x12, 0x00, 0x13, 0x37]
        let first = pdu + (try SecurityFunctions.signature(csrk: csrk, message: pdu, counter: 0))
        #expect(harness.manager.verifySignedWrite(first, on: harness.link))
        #expect(!harness.manager.verifySignedWrite(first, on: harness.link))
        let second = pdu + (try SecurityFunctions.signature(csrk: csrk, message: pdu, counter: 5))
        #expect(harness.manager.verifySignedWrite(second, on: harness.link))
        let wrongKey = pdu + (try SecurityFunctions.signature(csrk: SecureRandom.bytes(16), message: pdu, counter: 6))
        #expect(!harness.manager.verifySignedWrite(wrongKey, on: harness.link))
        // The counter reaches the store (a restart must not accept a replay either).
        while await store.bond(for: identity)?.peerSignCounter != 5 { await Task.yield() }

        let stranger = try await SMPHarness(peer: DeviceAddress(BluetoothAddress("C0:99:99:99:99:99")!, type: .randomDevice), store: store)
        #expect(!stranger.manager.verifySignedWrite(second, on: stranger.link))
    }
}

/// Repeated Attempts guards against guessing: a refusal by policy does not lock a central out.
@Suite(.scaledTimeLimit(minutes: 1)) struct PolicyRefusalTests {
    @Test func aRefusalByPolicyDoesNotMakeTheCentralWait() async throws {
        let agent = TestAgent { $0.decision = .refuse(.pairingNotSupported, because: "the pairing window is closed") }
        let harness = try await SMPHarness(agent: agent)
        #expect(await harness.exchange(TestInitiator().preq).first == [0x05, 0x05])
        agent.state.withLock { $0.decision = .allow }
        // The window opened: the next Pairing Request at once is answered, not refused with 0x09.
        #expect(await harness.exchange(TestInitiator().preq).first?.first == 0x02)
    }
}

/// A guesser rotating its address must not grow the repeated-attempts table without bound.
@Suite struct RepeatedAttemptsTableTests {
    static func link(_ index: Int) -> Link {
        let bytes: [UInt8] = [UInt8(index & 0xFF), UInt8(index >> 8 & 0xFF), 0, 0, 0, 0xC0]
        return Link(handle: 0x40, role: .peripheral, peer: DeviceAddress(BluetoothAddress(littleEndian: bytes), type: .randomDevice),
                    parameters: .init(interval: 24, latency: 0, supervisionTimeout: 400))
    }

    @Test func theTableIsBoundedAndForgetsWaitsLongOver() async throws {
        let harness = try await SMPHarness()
        for index in 0..<1_000 { harness.manager.recordFailure(of: Self.link(index)) }
        #expect(harness.manager.trackedAttemptCount == SecurityManager.maximumTrackedAttempts)
        // Every wait has ended and then the longest wait more: the next failure prunes them all.
        harness.clock.advance(by: .seconds(2) + .seconds(120) + .seconds(1))
        harness.manager.recordFailure(of: Self.link(5_000))
        #expect(harness.manager.trackedAttemptCount == 1)
    }

    @Test func aFullTableKeepsTheWaitOfThePeerThatJustFailed() async throws {
        let harness = try await SMPHarness()
        // Every tracked peer failed three times and waits longer than a first failure does.
        for index in 0..<SecurityManager.maximumTrackedAttempts {
            for _ in 0..<3 { harness.manager.recordFailure(of: Self.link(index)) }
        }
        let newcomer = Self.link(9_999)
        harness.manager.recordFailure(of: newcomer)
        #expect(harness.manager.trackedAttemptCount == SecurityManager.maximumTrackedAttempts)
        #expect(harness.manager.state.withLock { $0.attempts[newcomer.identity.bondIdentity] } != nil)
    }
}
