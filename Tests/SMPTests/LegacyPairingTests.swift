import BLECore
import Bonding
import HCI
import SecurityToolbox
import Testing
import TestSupport
@testable import SMP

/// Legacy pairing as responder (Core Vol 3 Part H 2.3.5.5, 2.4.1 key distribution).
@Suite(.scaledTimeLimit(minutes: 1)) struct LegacyPairingTests {
    static let legacyAuth: AuthenticationRequirements = [.bonding]

    /// Mconfirm/Sconfirm, Mrand/Srand; returns the STK the central computes.
    static func confirmAndRandom(_ harness: SMPHarness, _ central: TestInitiator, pres: [UInt8], tk: [UInt8]) async throws -> [UInt8] {
        let sconfirm = try #require(await harness.exchange([0x03] + central.legacyConfirm(pres: pres, tk: tk)).first)
        #expect(sconfirm.first == 0x03)
        let srand = try #require(await harness.exchange([0x04] + central.mrand).first)
        #expect(srand.first == 0x04)
        #expect(try SecurityFunctions.c1(k: tk, r: srand.parameters, preq: central.preq, pres: pres,
                                         initiator: central.address, responder: central.responderAddress) == sconfirm.parameters)
        return try SecurityFunctions.s1(k: tk, r1: srand.parameters, r2: central.mrand)
    }

    @Test func anAllZeroLTKFromTheCentralFailsThePairing() async throws {
        let harness = try await SMPHarness()
        let central = TestInitiator(auth: Self.legacyAuth, initiatorKeys: [.encryptionKey], responderKeys: [.encryptionKey])
        let pres = try #require(await harness.exchange(central.preq).first)
        _ = try await Self.confirmAndRandom(harness, central, pres: pres, tk: [UInt8](repeating: 0, count: 16))
        harness.manager.encryptionChanged(on: harness.link, status: .success)
        harness.feed([0x06] + [UInt8](repeating: 0, count: 16))
        let failure = try #require(await harness.failure())
        #expect(failure.0 == .invalidParameters && failure.1.contains("all-zero LTK"))
        #expect(await harness.store.bonds().isEmpty)
    }

    @Test func justWorksGivesAnSTKThenDistributesOurLTKAndStoresTheBond() async throws {
        let harness = try await SMPHarness()
        let central = TestInitiator(auth: Self.legacyAuth, initiatorKeys: [.encryptionKey, .identityKey],
                                    responderKeys: [.encryptionKey, .identityKey, .signingKey, .linkKey])
        let pres = try #require(await harness.exchange(central.preq).first)
        // Bonding + SC offered by us; the link key bit is cleared (LE only).
        #expect(pres == [0x02, 0x03, 0x00, 0x09, 0x10, 0x03, 0x07])
        let stk = try await Self.confirmAndRandom(harness, central, pres: pres, tk: [UInt8](repeating: 0, count: 16))
        let key = try #require(harness.manager.longTermKey(for: harness.link, random: 0, ediv: 0))
        #expect(key.key == stk)
        #expect(key.properties == EncryptionKeyProperties(keySize: 16, authenticated: false, secureConnections: false))

        let before = harness.sent.all.count
        harness.manager.encryptionChanged(on: harness.link, status: .success)
        await harness.sent.wait(for: before + 5)
        let distributed = Array(harness.sent.all[before...])
        #expect(distributed.map { $0.first } == [0x06, 0x07, 0x08, 0x09, 0x0A])
        let ltk = distributed[0].parameters
        let ediv = UInt16(distributed[1][1]) | UInt16(distributed[1][2]) << 8
        let rand = distributed[1][3...10].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }

        let peerLTK = SecureRandom.bytes(16), irk = SecureRandom.bytes(16)
        let identity = DeviceAddress(BluetoothAddress("D1:00:00:00:00:01")!, type: .randomDevice)
        harness.feed([0x06] + peerLTK)
        harness.feed([0x07, 0x34, 0x12] + [1, 2, 3, 4, 5, 6, 7, 8])
        harness.feed([0x08] + irk)
        harness.feed([0x09, 0x01] + identity.address.littleEndianBytes)
        let (result, bonded) = try #require(await harness.paired())
        #expect(bonded && result.method == .justWorks && !result.secureConnections)
        let bond = try #require(await harness.store.bond(for: identity))
        #expect(bond.ltk == LongTermKeyRecord(key: Key128(ltk)!, ediv: ediv, rand: rand, keySize: 16, authenticated: false, secureConnections: false))
        #expect(bond.peerLTK?.key.bytes == peerLTK && bond.peerLTK?.ediv == 0x1234 && bond.peerLTK?.rand == 0x0807060504030201)
        // A later connection encrypts with our distributed key, found by EDIV and Rand.
        #expect(harness.manager.longTermKey(for: harness.link, random: rand, ediv: ediv)?.key == ltk)
        #expect(harness.manager.longTermKey(for: harness.link, random: rand &+ 1, ediv: ediv) == nil)
    }

    @Test func passkeyEntryWithARandomPasskeyWeDisplay() async throws {
        let harness = try await SMPHarness { $0.policy.ioCapability = .displayOnly }
        let central = TestInitiator(io: .keyboardDisplay, auth: [.bonding, .mitm])
        let pres = try #require(await harness.exchange(central.preq).first)
        await harness.agent.waitForDisplay()
        let passkey = try #require(harness.agent.state.withLock { $0.displayed.first })
        #expect(passkey < 1_000_000)
        let stk = try await Self.confirmAndRandom(harness, central, pres: pres, tk: TestInitiator.tk(passkey: passkey))
        let key = try #require(harness.manager.longTermKey(for: harness.link, random: 0, ediv: 0))
        #expect(key.key == stk && key.properties.level == .authenticated)
    }

    @Test func aKeyShorterThan16OctetsIsMaskedAndRefusedBelowTheMinimum() async throws {
        let harness = try await SMPHarness { $0.policy.minimumKeySize = 10 }
        let central = TestInitiator(auth: Self.legacyAuth, maxKeySize: 10)
        let pres = try #require(await harness.exchange(central.preq).first)
        let stk = try await Self.confirmAndRandom(harness, central, pres: pres, tk: [UInt8](repeating: 0, count: 16))
        let key = try #require(harness.manager.longTermKey(for: harness.link, random: 0, ediv: 0))
        #expect(key.key == Array(stk[0..<10]) + [UInt8](repeating: 0, count: 6))
        #expect(key.properties.keySize == 10)

        let strict = try await SMPHarness()
        #expect(await strict.exchange(TestInitiator(maxKeySize: 15).preq).first == [0x05, 0x06])
        #expect(await strict.failure()?.0 == .encryptionKeySize)
    }

    @Test func secureConnectionsOnlyRefusesLegacyAndMITMRequiredRefusesJustWorks() async throws {
        let scOnly = try await SMPHarness { $0.policy.secureConnectionsOnly = true }
        #expect(await scOnly.exchange(TestInitiator(auth: Self.legacyAuth).preq).first == [0x05, 0x03])
        let mitm = try await SMPHarness { $0.policy.requireMITM = true }
        #expect(await mitm.exchange(TestInitiator().preq).first == [0x05, 0x03])
    }

    @Test func aWrongConfirmValueFails() async throws {
        let harness = try await SMPHarness()
        let central = TestInitiator(auth: Self.legacyAuth)
        _ = await harness.exchange(central.preq)
        _ = await harness.exchange([0x03] + [UInt8](repeating: 7, count: 16))
        #expect(await harness.exchange([0x04] + central.mrand).first == [0x05, 0x04])
        #expect(harness.manager.longTermKey(for: harness.link, random: 0, ediv: 0) == nil)
    }
}

extension TestAgent {
    func waitForDisplay() async {
        while state.withLock({ $0.displayed.isEmpty }) { await Task.yield() }
    }
}
