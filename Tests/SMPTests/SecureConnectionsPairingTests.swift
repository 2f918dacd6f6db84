import BLECore
import Bonding
import HCI
import SecurityToolbox
import Testing
import TestSupport
@testable import SMP

/// LE Secure Connections as responder, byte by byte against a central computed with the toolbox
/// (Core Vol 3 Part H 2.3.5.6, C.2.2 message sequences).
@Suite(.scaledTimeLimit(minutes: 1)) struct SecureConnectionsPairingTests {
    /// Runs the public key exchange; returns the Pairing Response and our public key.
    static func exchangeKeys(_ harness: SMPHarness, _ central: TestInitiator) async throws -> (pres: [UInt8], x: [UInt8], y: [UInt8], confirm: [UInt8]?, justWorks: Bool) {
        let pres = try #require(await harness.exchange(central.preq).first)
        #expect(pres.first == 0x02)
        let method = PairingMethod.select(initiator: central.features, responder: try PairingFeatures(parameters: pres[1...]), secureConnections: true)
        let passkey: Bool
        if case .passkeyEntry = method { passkey = true } else { passkey = false }
        let answers = await harness.exchange(central.publicKeyPDU, expecting: passkey ? 1 : 2)
        let key = answers[0]
        #expect(key.first == 0x0C && key.count == 65)
        return (pres, Array(key[1...32]), Array(key[33...64]), passkey ? nil : answers[1].parameters, !passkey)
    }

    /// Central side of Just Works / Numeric Comparison after the keys: Na, checks, Ea.
    static func runNonces(_ harness: SMPHarness, _ central: TestInitiator, pres: [UInt8], x: [UInt8], y: [UInt8], cb: [UInt8])
        async throws -> (ltk: [UInt8], nb: [UInt8]) {
        let nbPDU = try #require(await harness.exchange([0x04] + central.na).first)
        #expect(nbPDU.first == 0x04)
        let nb = nbPDU.parameters
        #expect(try SecurityFunctions.f4(u: x, v: central.keyPair.publicKeyX, x: nb, z: 0) == cb)
        let checks = try central.secureConnectionsChecks(peerX: x, peerY: y, nb: nb, pres: pres, r: [UInt8](repeating: 0, count: 16))
        return (checks.ltk, nb)
    }

    @Test func justWorksBondsWithKeysDistributedBothWays() async throws {
        let harness = try await SMPHarness()
        let central = TestInitiator()
        let (pres, x, y, cb, _) = try await Self.exchangeKeys(harness, central)
        // Response: NoInputNoOutput, no OOB, bonding + SC, 16 octets, no LTK asked of the central (SC), LinkKey never.
        #expect(pres == [0x02, 0x03, 0x00, 0x09, 0x10, 0x06, 0x07])
        let (_, nb) = try await Self.runNonces(harness, central, pres: pres, x: x, y: y, cb: try #require(cb))
        let checks = try central.secureConnectionsChecks(peerX: x, peerY: y, nb: nb, pres: pres, r: [UInt8](repeating: 0, count: 16))
        let eb = try #require(await harness.exchange([0x0D] + checks.ea).first)
        #expect(eb == [0x0D] + checks.eb)

        // The central encrypts with the LTK (EDIV and Rand zero).
        let key = try #require(harness.manager.longTermKey(for: harness.link, random: 0, ediv: 0))
        #expect(key.key == checks.ltk)
        #expect(key.properties == EncryptionKeyProperties(keySize: 16, authenticated: false, secureConnections: true))
        #expect(harness.manager.longTermKey(for: harness.link, random: 1, ediv: 0) == nil)

        // We distribute first: IRK, identity address, CSRK (no LTK in LE SC).
        let before = harness.sent.all.count
        harness.manager.encryptionChanged(on: harness.link, status: .success)
        await harness.sent.wait(for: before + 3)
        let distributed = Array(harness.sent.all[before...])
        let identity = try #require(harness.manager.localIdentity)
        let expectedKeys: [[UInt8]] = [[0x08] + identity.irk.bytes, [0x09, 0x00] + SMPHarness.ours.address.littleEndianBytes, [0x0A] + identity.csrk.bytes]
        #expect(distributed == expectedKeys)

        let irk = SecureRandom.bytes(16), csrk = SecureRandom.bytes(16)
        let peerIdentity = DeviceAddress(BluetoothAddress("00:AA:BB:CC:DD:EE")!, type: .publicDevice)
        harness.feed([0x08] + irk)
        harness.feed([0x09, 0x00] + peerIdentity.address.littleEndianBytes)
        harness.feed([0x0A] + csrk)
        let (result, bonded) = try #require(await harness.paired())
        #expect(bonded)
        #expect(result.method == .justWorks && result.secureConnections && result.keySize == 16)
        #expect(result.peerIdentity == peerIdentity && result.peerIRK == Key128(irk) && result.peerCSRK == Key128(csrk))
        let bond = try #require(await harness.store.bond(for: peerIdentity))
        #expect(bond.ltk?.key.bytes == checks.ltk && bond.ltk?.ediv == 0 && bond.ltk?.rand == 0 && bond.ltk?.secureConnections == true)
        #expect(bond.ltk?.authenticated == false)
        #expect(harness.link.isBonded && harness.link.identity == peerIdentity)
        // The bond answers the next connection's LTK request.
        #expect(harness.manager.bond(for: peerIdentity) == bond)
    }

    @Test func keysTheCentralSendsBeforeWeHearOfTheEncryptionWaitForIt() async throws {
        // The Encryption Change reaches the Security Manager after a hop; the central's keys can
        // arrive first when it has nothing to wait for from us.
        let harness = try await SMPHarness { $0.policy.responderKeys = [] }
        let central = TestInitiator(initiatorKeys: [.identityKey], responderKeys: [])
        let (pres, x, y, cb, _) = try await Self.exchangeKeys(harness, central)
        let (_, nb) = try await Self.runNonces(harness, central, pres: pres, x: x, y: y, cb: try #require(cb))
        let checks = try central.secureConnectionsChecks(peerX: x, peerY: y, nb: nb, pres: pres, r: [UInt8](repeating: 0, count: 16))
        _ = await harness.exchange([0x0D] + checks.ea)
        let identity = DeviceAddress(BluetoothAddress("00:AA:BB:CC:DD:01")!, type: .publicDevice)
        let count = harness.sent.all.count
        harness.feed([0x08] + SecureRandom.bytes(16))
        harness.feed([0x09, 0x00] + identity.address.littleEndianBytes)
        #expect(harness.sent.all.count == count)
        harness.manager.encryptionChanged(on: harness.link, status: .success)
        let (result, bonded) = try #require(await harness.paired())
        #expect(bonded && result.peerIdentity == identity)
    }

    @Test func passkeyEntryWithOurFixedPasskeyIsAuthenticated() async throws {
        let harness = try await SMPHarness { $0.policy.ioCapability = .displayOnly; $0.policy.passkey = .fixed(123456) }
        var central = TestInitiator(io: .keyboardOnly, auth: [.bonding, .mitm, .secureConnections])
        central.passkey = 123456
        let (pres, x, y, _, _) = try await Self.exchangeKeys(harness, central)
        await harness.agent.waitForDisplay()
        #expect(harness.agent.state.withLock { $0.displayed } == [123456])
        var nb: [UInt8] = []
        for round in 0..<20 {
            let bit = UInt8(0x80 | ((central.passkey >> UInt32(round)) & 1))
            let nai = SecureRandom.bytes(16)
            let cai = try SecurityFunctions.f4(u: central.keyPair.publicKeyX, v: x, x: nai, z: bit)
            let cbi = try #require(await harness.exchange([0x03] + cai).first)
            #expect(cbi.first == 0x03)
            let nbi = try #require(await harness.exchange([0x04] + nai).first)
            #expect(nbi.first == 0x04)
            #expect(try SecurityFunctions.f4(u: x, v: central.keyPair.publicKeyX, x: nbi.parameters, z: bit) == cbi.parameters)
            central.na = nai
            nb = nbi.parameters
        }
        let r = TestInitiator.passkeyValue(central.passkey)
        let checks = try central.secureConnectionsChecks(peerX: x, peerY: y, nb: nb, pres: pres, r: r)
        #expect(try #require(await harness.exchange([0x0D] + checks.ea).first) == [0x0D] + checks.eb)
        let key = try #require(harness.manager.longTermKey(for: harness.link, random: 0, ediv: 0))
        #expect(key.key == checks.ltk)
        #expect(key.properties.level == .authenticatedSecureConnections)
    }

    /// A guesser rotating its address: each wrong passkey reveals a bit of a fixed passkey, so past
    /// a few typos every passkey pairing waits, whoever asks, and the wait doubles.
    @Test func wrongPasskeysFromRotatingAddressesMakeEveryPasskeyPairingWait() async throws {
        let harness = try await SMPHarness { $0.policy.ioCapability = .displayOnly; $0.policy.passkey = .fixed(123456) }
        let central = TestInitiator(io: .keyboardOnly, auth: [.bonding, .mitm, .secureConnections])
        func guess(from index: Int) async throws -> [UInt8]? {
            let peer = DeviceAddress(BluetoothAddress(littleEndian: [UInt8(index), 0, 0, 0, 0x66, 0x4A]), type: .randomDevice)
            let link = harness.openLink(from: peer, handle: UInt16(0x100 + index))
            let pres = try #require(await harness.exchange(central.preq, on: link).first)
            guard pres.first == 0x02 else { return pres }
            let key = try #require(await harness.exchange(central.publicKeyPDU, on: link).first)
            let x = Array(key[1...32])
            // Bit 0 of 123456 is 0: guessing 1 fails the first round.
            let nai = SecureRandom.bytes(16)
            let cai = try SecurityFunctions.f4(u: central.keyPair.publicKeyX, v: x, x: nai, z: 0x81)
            #expect(await harness.exchange([0x03] + cai, on: link).first?.first == 0x03)
            #expect(await harness.exchange([0x04] + nai, on: link).first == [0x05, 0x04])
            return nil
        }
        for index in 0..<SecurityManager.freePasskeyGuesses {
            #expect(try await guess(from: index) == nil)
        }
        #expect(harness.manager.passkeyPairingWait == nil)
        #expect(try await guess(from: 10) == nil)
        #expect(harness.manager.passkeyPairingWait == SecurityManager.firstPasskeyWait)
        // A fresh address changes nothing: refused with Repeated Attempts before any passkey round.
        #expect(try await guess(from: 11) == [0x05, 0x09])
        #expect(await harness.waitForEvent {
            if case let .pairingFailed(_, .repeatedAttempts, detail) = $0 { detail.contains("too many wrong passkeys") } else { false }
        } != nil)
        harness.clock.advance(by: SecurityManager.firstPasskeyWait)
        #expect(try await guess(from: 12) == nil)
        #expect(harness.manager.passkeyPairingWait == SecurityManager.firstPasskeyWait * 2)
    }

    @Test func aWrongPasskeyFailsTheFirstRoundWithConfirmValueFailed() async throws {
        let harness = try await SMPHarness { $0.policy.ioCapability = .displayOnly; $0.policy.passkey = .fixed(123456) }
        let central = TestInitiator(io: .keyboardOnly, auth: [.bonding, .mitm, .secureConnections])
        let (_, x, _, _, _) = try await Self.exchangeKeys(harness, central)
        let wrong: UInt32 = 654320
        // Rounds before the first bit where the passkeys differ succeed; that round fails.
        var failing = 0
        while (wrong >> UInt32(failing)) & 1 == (123456 >> UInt32(failing)) & 1 { failing += 1 }
        for round in 0...failing {
            let nai = SecureRandom.bytes(16)
            let bit = UInt8(0x80 | ((wrong >> UInt32(round)) & 1))
            let cai = try SecurityFunctions.f4(u: central.keyPair.publicKeyX, v: x, x: nai, z: bit)
            #expect(await harness.exchange([0x03] + cai).first?.first == 0x03)
            let answer = await harness.exchange([0x04] + nai).first
            #expect(answer?.first == (round < failing ? 0x04 : 0x05))
            if round == failing { #expect(answer == [0x05, 0x04]) }
        }
        #expect(await harness.failure()?.0 == .confirmValueFailed)
        #expect(harness.manager.longTermKey(for: harness.link, random: 0, ediv: 0) == nil)
    }

    @Test func numericComparisonWaitsForTheUserAndFailsWhenRejected() async throws {
        for accepted in [true, false] {
            let agent = TestAgent { $0.comparisonAnswer = accepted ? .confirmedByPerson : .rejected }
            let harness = try await SMPHarness(agent: agent) { $0.policy.ioCapability = .displayYesNo }
            let central = TestInitiator(io: .displayYesNo, auth: [.bonding, .mitm, .secureConnections])
            let (pres, x, y, cb, _) = try await Self.exchangeKeys(harness, central)
            let (_, nb) = try await Self.runNonces(harness, central, pres: pres, x: x, y: y, cb: try #require(cb))
            let expected = try SecurityFunctions.g2(u: central.keyPair.publicKeyX, v: x, x: central.na, y: nb)
            let checks = try central.secureConnectionsChecks(peerX: x, peerY: y, nb: nb, pres: pres, r: [UInt8](repeating: 0, count: 16))
            if accepted {
                let answer = try #require(await harness.exchange([0x0D] + checks.ea).first)
                #expect(harness.agent.state.withLock { $0.compared } == [expected])
                #expect(answer == [0x0D] + checks.eb)
                #expect(harness.manager.longTermKey(for: harness.link, random: 0, ediv: 0)?.properties.level == .authenticatedSecureConnections)
            } else {
                // The user may reject before or after the central's check value arrives: either
                // way the pairing fails with Numeric Comparison Failed and Eb is never sent.
                harness.feed([0x0D] + checks.ea)
                #expect(await harness.failure()?.0 == .numericComparisonFailed)
                #expect(harness.agent.state.withLock { $0.compared } == [expected])
                #expect(harness.sent.all.contains([0x05, 0x0C]))
                #expect(!harness.sent.all.contains { $0.first == 0x0D })
                #expect(await harness.failure()?.0 == .numericComparisonFailed)
            }
        }
    }

    /// Method Confusion's precondition: a comparison nobody looked at protects against no man in
    /// the middle, so it must not yield an authenticated key (Linux's JUST_CFM).
    @Test func aComparisonAcceptedWithNoOneComparingYieldsAnUnauthenticatedBond() async throws {
        let agent = TestAgent { $0.comparisonAnswer = .acceptedWithoutComparing }
        let harness = try await SMPHarness(agent: agent) { $0.policy.ioCapability = .keyboardDisplay }
        let central = TestInitiator(io: .keyboardDisplay, auth: [.bonding, .mitm, .secureConnections])
        let (pres, x, y, cb, _) = try await Self.exchangeKeys(harness, central)
        let (_, nb) = try await Self.runNonces(harness, central, pres: pres, x: x, y: y, cb: try #require(cb))
        let checks = try central.secureConnectionsChecks(peerX: x, peerY: y, nb: nb, pres: pres, r: [UInt8](repeating: 0, count: 16))
        #expect(await harness.exchange([0x0D] + checks.ea).first == [0x0D] + checks.eb)
        #expect(harness.agent.state.withLock { $0.compared.count } == 1)
        #expect(harness.manager.longTermKey(for: harness.link, random: 0, ediv: 0)?.properties.level == .unauthenticated)
        let before = harness.sent.all.count
        harness.manager.encryptionChanged(on: harness.link, status: .success)
        await harness.sent.wait(for: before + 3)
        harness.feed([0x08] + SecureRandom.bytes(16))
        harness.feed([0x09, 0x00] + BondPolicyTests.a.address.littleEndianBytes)
        harness.feed([0x0A] + SecureRandom.bytes(16))
        let (result, bonded) = try #require(await harness.paired())
        #expect(result.method == .numericComparison && bonded)
        #expect(!result.properties.authenticated)
        let stored = try #require(await harness.store.bond(for: BondPolicyTests.a))
        #expect(stored.ltk?.authenticated == false)
    }

    @Test func aWrongDHKeyCheckFails() async throws {
        let harness = try await SMPHarness()
        let central = TestInitiator()
        let (pres, x, y, cb, _) = try await Self.exchangeKeys(harness, central)
        _ = try await Self.runNonces(harness, central, pres: pres, x: x, y: y, cb: try #require(cb))
        #expect(await harness.exchange([0x0D] + [UInt8](repeating: 0x42, count: 16)).first == [0x05, 0x0B])
        #expect(await harness.failure()?.0 == .dhKeyCheckFailed)
    }

    @Test func aPublicKeyNotOnTheCurveOrOurOwnIsRefused() async throws {
        let harness = try await SMPHarness()
        let central = TestInitiator()
        _ = await harness.exchange(central.preq)
        var bad = central.publicKeyPDU
        bad[40] ^= 0x01
        #expect(await harness.exchange(bad).first == [0x05, 0x0A])
        #expect(await harness.failure()?.0 == .invalidParameters)

        // Reflection: a central that sends our own key back (we learn it from a first, good exchange).
        let second = try await SMPHarness(fixedKeyPair: SecureConnectionsKeyPair.debug())
        _ = await second.exchange(central.preq)
        let debug = SecureConnectionsKeyPair.debug()
        #expect(await second.exchange([0x0C] + debug.publicKeyX + debug.publicKeyY).first == [0x05, 0x0A])
    }
}
