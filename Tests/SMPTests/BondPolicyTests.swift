import BLECore
import Bonding
import Foundation
import HCI
import SecurityToolbox
import Testing
import TestSupport
@testable import SMP

/// What happens to existing bonds when a central pairs: re-pairing under a new identity, a full
/// store (replace the least recently used, or refuse), weaker re-pairing.
@Suite(.scaledTimeLimit(minutes: 1)) struct BondPolicyTests {
    static func bond(_ identity: DeviceAddress, irk: [UInt8]? = nil, seen: TimeInterval = 0, authenticated: Bool = false) -> Bond {
        let ltk = LongTermKeyRecord(key: Key128(SecureRandom.bytes(16))!, ediv: 0, rand: 0, keySize: 16,
                                    authenticated: authenticated, secureConnections: true)
        return Bond(identity: identity, ltk: ltk, peerLTK: nil, peerIRK: irk.flatMap(Key128.init), peerCSRK: nil, peerSignCounter: nil,
                    localCSRK: nil, localSignCounter: 0, createdAt: Date(timeIntervalSince1970: seen), lastSeen: Date(timeIntervalSince1970: seen))
    }

    /// LE SC Just Works to the end, the central distributing `irk`, `identity` and `csrk`.
    static func pair(_ harness: SMPHarness, identity: DeviceAddress, central: TestInitiator = TestInitiator(),
                     irk: [UInt8] = SecureRandom.bytes(16), csrk: [UInt8] = SecureRandom.bytes(16)) async throws {
        let (pres, x, y, cb, _) = try await SecureConnectionsPairingTests.exchangeKeys(harness, central)
        let (_, nb) = try await SecureConnectionsPairingTests.runNonces(harness, central, pres: pres, x: x, y: y, cb: try #require(cb))
        let checks = try central.secureConnectionsChecks(peerX: x, peerY: y, nb: nb, pres: pres, r: [UInt8](repeating: 0, count: 16))
        _ = await harness.exchange([0x0D] + checks.ea)
        let before = harness.sent.all.count
        harness.manager.encryptionChanged(on: harness.link, status: .success)
        await harness.sent.wait(for: before + 3)
        harness.feed([0x08] + irk)
        harness.feed([0x09, identity.type.isRandom ? 1 : 0] + identity.address.littleEndianBytes)
        harness.feed([0x0A] + csrk)
    }

    static let a = DeviceAddress(BluetoothAddress("00:AA:00:00:00:01")!, type: .publicDevice)
    static let b = DeviceAddress(BluetoothAddress("00:AA:00:00:00:02")!, type: .publicDevice)

    @Test func aCentralThatRepairsUnderANewIdentityReplacesItsOldBondInOneStep() async throws {
        for proves in [true, false] {
            let store = InMemoryBondStore()
            let irk = SecureRandom.bytes(16)
            try await store.saveBond(Self.bond(Self.a, irk: irk), gattState: .empty, replacing: nil)
            let rpa = DeviceAddress(try ResolvablePrivateAddress.make(irk: irk), type: .randomDevice)
            let harness = try await SMPHarness(peer: rpa, store: store)
            #expect(harness.link.identity == Self.a)
            if proves {
                // It encrypts with its bond's key first: it is the bonded central.
                #expect(harness.manager.longTermKey(for: harness.link, random: 0, ediv: 0) != nil)
                harness.manager.encryptionChanged(on: harness.link, status: .success)
            }
            #expect(harness.manager.isProvenBonded(harness.link) == proves)
            guard proves else {
                // Claiming A's address (replaying its RPA) proves nothing: Just Works may not touch A's
                // bond, and the pairing is refused at once (BondTakeoverTests).
                #expect(await harness.exchange(TestInitiator().preq).first == [0x05, 0x03])
                #expect(await store.bonds().map(\.identity) == [Self.a])
                continue
            }
            var central = TestInitiator()
            central.address = rpa
            try await Self.pair(harness, identity: Self.b, central: central)
            #expect(try #require(await harness.paired()).1)
            #expect(await store.bonds().map(\.identity) == [Self.b])
            #expect(harness.manager.bond(for: Self.a) == nil && harness.manager.bond(for: Self.b) != nil)
        }
    }

    @Test func aFullStoreGivesUpItsLeastRecentlyUsedBond() async throws {
        let store = InMemoryBondStore()
        try await store.saveBond(Self.bond(Self.a, seen: 10), gattState: .empty, replacing: nil)
        try await store.saveBond(Self.bond(Self.b, seen: 20), gattState: .empty, replacing: nil)
        let harness = try await SMPHarness(store: store) { $0.maximumBonds = 2 }
        let c = DeviceAddress(BluetoothAddress("00:AA:00:00:00:03")!, type: .publicDevice)
        try await Self.pair(harness, identity: c)
        #expect(try #require(await harness.paired()).1)
        #expect(Set(await store.bonds().map(\.identity)) == [Self.b, c])
        #expect(await harness.waitForEvent { if case .bondRemoved(Self.a) = $0 { return true }; return false } != nil)
    }

    @Test func aFullStoreCanRefuseNewCentrals() async throws {
        let store = InMemoryBondStore()
        try await store.saveBond(Self.bond(Self.a), gattState: .empty, replacing: nil)
        let harness = try await SMPHarness(store: store) { $0.maximumBonds = 1; $0.bondLimitPolicy = .refuseNew }
        #expect(await harness.exchange(TestInitiator().preq).first == [0x05, 0x08])
        #expect(await harness.failure()?.1.contains("bond store is full") == true)
        #expect(await store.bonds().map(\.identity) == [Self.a])
    }

    @Test func weakerRepairingIsRefusedWhenThePolicySaysSo() async throws {
        let store = InMemoryBondStore()
        try await store.saveBond(Self.bond(SMPHarness.central, authenticated: true), gattState: .empty, replacing: nil)
        // The bonded central, proven (encrypted with its bond's key), asks for Just Works, which
        // would replace an authenticated bond.
        let harness = try await SMPHarness(store: store) { $0.allowWeakerRepairing = false }
        Self.prove(harness)
        #expect(await harness.exchange(TestInitiator().preq).first == [0x05, 0x03])
        let allowing = try await SMPHarness(store: store)
        Self.prove(allowing)
        #expect(await allowing.exchange(TestInitiator().preq).first?.first == 0x02)
    }

    /// The link encrypts with its bond's key: it is the bonded central.
    static func prove(_ harness: SMPHarness) {
        _ = harness.manager.longTermKey(for: harness.link, random: 0, ediv: 0)
        harness.manager.encryptionChanged(on: harness.link, status: .success)
    }
}

/// Zephyr's `update_keys_check`: a pairing that names a bond it did not prove (encrypting with its
/// key) cannot take it over unless it is authenticated and at least as strong, whatever the
/// weaker-repairing setting. The attacker here knows the owner's address and nothing else.
@Suite(.scaledTimeLimit(minutes: 1)) struct BondTakeoverTests {
    static let owner = DeviceAddress(BluetoothAddress("00:AA:00:00:00:01")!, type: .publicDevice)
    static let attacker = DeviceAddress(BluetoothAddress("C0:66:66:66:66:66")!, type: .randomDevice)

    @Test func aStrangerDistributingTheOwnersIdentityGetsNoBondAndNoIdentity() async throws {
        let store = InMemoryBondStore()
        let owners = BondPolicyTests.bond(Self.owner)
        try await store.saveBond(owners, gattState: .empty, replacing: nil)
        let harness = try await SMPHarness(peer: Self.attacker, store: store)
        var central = TestInitiator()
        central.address = Self.attacker
        try await BondPolicyTests.pair(harness, identity: Self.owner, central: central)
        let failure = try #require(await harness.failure())
        #expect(failure.0 == .authenticationRequirements)
        #expect(harness.sent.all.contains([0x05, 0x03]))
        #expect(await harness.waitForEvent { if case .bondTakeoverRefused(_, Self.owner) = $0 { return true }; return false } != nil)
        // The owner's keys are untouched; the link keeps the attacker's own address.
        #expect(await store.bonds().map(\.identity) == [Self.owner])
        #expect(await store.bonds().first?.ltk == owners.ltk)
        #expect(harness.manager.bond(for: Self.owner)?.ltk == owners.ltk)
        #expect(harness.link.identity == Self.attacker)
        #expect(!harness.link.isBonded)
    }

    @Test func aStrangerConnectingFromTheOwnersAddressIsRefusedAtItsPairingRequest() async throws {
        let store = InMemoryBondStore()
        try await store.saveBond(BondPolicyTests.bond(Self.owner), gattState: .empty, replacing: nil)
        // Weaker re-pairing allowed: the takeover rule does not depend on it.
        let harness = try await SMPHarness(peer: Self.owner, store: store) { $0.allowWeakerRepairing = true }
        #expect(await harness.exchange(TestInitiator().preq).first == [0x05, 0x03])
        #expect(await harness.failure()?.1.contains("did not prove") == true)
        #expect(await store.bonds().count == 1)
    }

    @Test func eightFreshIdentitiesCannotEvictTheOwnersBondWhenTheStoreRefusesNew() async throws {
        let store = InMemoryBondStore()
        try await store.saveBond(BondPolicyTests.bond(Self.owner), gattState: .empty, replacing: nil)
        for index in 1...8 {
            let stranger = DeviceAddress(BluetoothAddress(littleEndian: [UInt8(index), 0, 0, 0, 0x66, 0xC0]), type: .randomDevice)
            let harness = try await SMPHarness(peer: stranger, store: store) { $0.maximumBonds = 1; $0.bondLimitPolicy = .refuseNew }
            #expect(await harness.exchange(TestInitiator().preq).first == [0x05, 0x08])
        }
        #expect(await store.bonds().map(\.identity) == [Self.owner])
    }

    /// Two strangers completing at once under one new identity: the first reserves it while its bond
    /// is saved, the second (here completing while the first is still saving) is refused.
    @Test func aSecondPairingUnderAnIdentityBeingSavedIsRefused() async throws {
        let store = InMemoryBondStore()
        let harness = try await SMPHarness(peer: Self.attacker, store: store)
        let first = LinkID.next()
        harness.manager.state.withLock { $0.bondsBeingSaved[Self.owner] = first }
        var central = TestInitiator()
        central.address = Self.attacker
        try await BondPolicyTests.pair(harness, identity: Self.owner, central: central)
        #expect(try #require(await harness.failure()).0 == .authenticationRequirements)
        #expect(await harness.waitForEvent { if case .bondTakeoverRefused(_, Self.owner) = $0 { return true }; return false } != nil)
        #expect(await store.bonds().isEmpty)
        #expect(harness.manager.state.withLock { $0.bondsBeingSaved[Self.owner] } == first)

        // Without the other link, the same pairing bonds, and its reservation ends with the save.
        let free = try await SMPHarness(peer: Self.attacker, store: store)
        try await BondPolicyTests.pair(free, identity: Self.owner, central: central)
        #expect(try #require(await free.paired()).1)
        #expect(free.manager.state.withLock { $0.bondsBeingSaved.isEmpty })
    }

    @Test func onlyAnAuthenticatedKeyAtLeastAsStrongReplacesAnUnprovenBond() {
        let bond = BondPolicyTests.bond(Self.owner, authenticated: true)
        let justWorks = EncryptionKeyProperties(keySize: 16, authenticated: false, secureConnections: true)
        let passkey = EncryptionKeyProperties(keySize: 16, authenticated: true, secureConnections: true)
        let shortPasskey = EncryptionKeyProperties(keySize: 7, authenticated: true, secureConnections: true)
        #expect(!SecurityManager.mayReplace(bond, with: justWorks))
        #expect(SecurityManager.mayReplace(bond, with: passkey))
        #expect(!SecurityManager.mayReplace(bond, with: shortPasskey))
        #expect(!SecurityManager.mayReplace(BondPolicyTests.bond(Self.owner), with: justWorks))
    }
}

/// Keys an attacker can forge without effort: an all-zero key in key distribution, the
/// specification's debug public key. Neither may end up in a bond.
@Suite(.scaledTimeLimit(minutes: 1)) struct ForgedKeyTests {
    static func pair(_ harness: SMPHarness, central: TestInitiator, irk: [UInt8], csrk: [UInt8]) async throws {
        try await BondPolicyTests.pair(harness, identity: SMPHarness.central, central: central, irk: irk, csrk: csrk)
    }

    @Test func anAllZeroSigningKeyFailsThePairing() async throws {
        let harness = try await SMPHarness()
        try await Self.pair(harness, central: TestInitiator(), irk: SecureRandom.bytes(16), csrk: [UInt8](repeating: 0, count: 16))
        let failure = try #require(await harness.failure())
        #expect(failure.0 == .invalidParameters && failure.1.contains("all-zero CSRK"))
        #expect(await harness.store.bonds().isEmpty)
    }

    @Test func anAllZeroIdentityKeyIsNoIdentityKey() async throws {
        // HCI's "no IRK": a bond without one, so no RPA made with zeros resolves to it.
        let harness = try await SMPHarness()
        try await Self.pair(harness, central: TestInitiator(), irk: [UInt8](repeating: 0, count: 16), csrk: SecureRandom.bytes(16))
        let (result, bonded) = try #require(await harness.paired())
        #expect(bonded && result.peerIRK == nil)
        #expect(await harness.store.bonds().first?.peerIRK == nil)
    }

    @Test func aCentralWithTheDebugKeyGetsNoBondAndNoAuthentication() async throws {
        let harness = try await SMPHarness()
        var central = TestInitiator()
        central.keyPair = SecureConnectionsKeyPair.debug()
        try await Self.pair(harness, central: central, irk: SecureRandom.bytes(16), csrk: SecureRandom.bytes(16))
        let (result, bonded) = try #require(await harness.paired())
        #expect(result.peerUsedDebugKey && !bonded)
        #expect(!result.properties.authenticated)
        #expect(await harness.store.bonds().isEmpty)
        #expect(harness.link.identity == SMPHarness.central)
    }

    /// A bonded central that re-pairs with the debug key: its bond is kept as it was, the identity
    /// it distributes is not adopted, and the link (now under a key anyone can compute) no longer
    /// counts as proving the bond.
    @Test func aProvenCentralThatRepairsWithTheDebugKeyKeepsItsBondButNotItsProof() async throws {
        let store = InMemoryBondStore()
        let owners = BondPolicyTests.bond(SMPHarness.central)
        try await store.saveBond(owners, gattState: .empty, replacing: nil)
        let harness = try await SMPHarness(store: store)
        BondPolicyTests.prove(harness)
        #expect(harness.manager.isProvenBonded(harness.link))
        var central = TestInitiator()
        central.keyPair = SecureConnectionsKeyPair.debug()
        try await BondPolicyTests.pair(harness, identity: BondPolicyTests.b, central: central)
        let (result, bonded) = try #require(await harness.paired())
        #expect(result.peerUsedDebugKey && !bonded)
        #expect(!harness.manager.isProvenBonded(harness.link))
        #expect(harness.link.identity == SMPHarness.central)
        #expect(await store.bonds().map(\.identity) == [SMPHarness.central])
        #expect(await store.bonds().first?.ltk == owners.ltk)
    }
}
