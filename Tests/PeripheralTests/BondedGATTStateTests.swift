import ATT
import BLECore
import Bonding
import Foundation
import GATT
import HCI
import SecurityToolbox
import SMP
import Testing
import VirtualController
import PeripheralTestSupport
import TestSupport
@testable import Peripheral

/// A bonded central and the store that remembers it, for peripherals that pair.
struct BondedSetup {
    static let ltk: [UInt8] = Array(0x20...0x2F)
    static let rand: UInt64 = 0x0102_0304_0506_0708
    static let ediv: UInt16 = 0x4321
    static let sealed = CharacteristicID("test.sealed")
    /// A notifying value that needs an encrypted link.
    static let sealedService = GATTService(uuid: BluetoothUUID("0000FED0-1234-5678-9ABC-DEF012345678")!, characteristics: [
        GATTCharacteristic(id: sealed, uuid: BluetoothUUID("0000FED1-1234-5678-9ABC-DEF012345678")!, properties: [.read, .notify],
                           permissions: [.readable, .readEncryptionRequired]),
    ])

    let store = InMemoryBondStore()

    /// The identity of the fixture's central `last` (a random static address, so no IRK is needed).
    static func identity(_ last: UInt8) -> DeviceAddress {
        DeviceAddress(BluetoothAddress(littleEndian: [last, 0, 0, 0, 0, 0xC2]), type: .randomDevice)
    }

    /// Stores a bond for central `last` whose LTK the central encrypts with.
    func bond(_ last: UInt8, gattState: PeerGATTState = .empty) async throws {
        let record = LongTermKeyRecord(key: Key128(Self.ltk)!, ediv: Self.ediv, rand: Self.rand, keySize: 16,
                                       authenticated: false, secureConnections: false)
        try await store.saveBond(Bond(identity: Self.identity(last), ltk: record, createdAt: Date(), lastSeen: Date()),
                                 gattState: gattState, replacing: nil)
    }

    func fixture() async throws -> PeripheralFixture {
        try await PeripheralFixture(services: [Self.sealedService]) { $0.security = SecuritySetup(store: store) }
    }
}

extension PeripheralFixture {
    /// Encrypts with the bond's key; returns once the peripheral acted on it (its `.securityChanged`).
    func encrypt(_ client: ATTTestClient) async throws {
        let before = count { if case .securityChanged = $0 { return true } else { return false } }
        #expect(await client.link.startEncryption(ltk: BondedSetup.ltk, random: BondedSetup.rand, ediv: BondedSetup.ediv)
                == .encrypted(keySize: 16))
        await recorder.wait(for: before + 1) { if case .securityChanged = $0 { return true } else { return false } }
    }

    func subscribedEvents(_ id: CharacteristicID) -> Int {
        count { if case let .subscribed(_, characteristic) = $0 { return characteristic == id } else { return false } }
    }

    /// Subscribes and waits for the peripheral's `.subscribed`: the server reports a CCCD write only
    /// after its Write Response, so the response alone does not mean the write was acted on.
    func subscribeAndWait(_ client: ATTTestClient, to id: CharacteristicID, value: UInt16) async throws {
        let before = subscribedEvents(id)
        try await subscribe(client, to: id, value: value)
        await recorder.wait(for: before + 1) { if case let .subscribed(_, characteristic) = $0 { return characteristic == id } else { return false } }
    }

    func disconnect(_ client: ATTTestClient) async {
        let before = count { $0.isDisconnection }
        client.link.disconnect()
        await recorder.wait(for: before + 1) { $0.isDisconnection }
    }
}

@Suite(.scaledTimeLimit(minutes: 1)) struct BondedGATTStateTests {
    @Test func aBondedCentralFindsItsSubscriptionAndTheValueItMissedAfterReEncrypting() async throws {
        let setup = BondedSetup()
        try await setup.bond(1)
        let fixture = try await setup.fixture()
        let database = await fixture.database
        let cccd = try #require(database.cccdHandle(for: TestIDs.notifying))
        let valueHandle = try #require(database.valueHandle(for: TestIDs.notifying))

        let first = try await fixture.connect(1)
        try await fixture.encrypt(first)
        try await fixture.subscribeAndWait(first, to: TestIDs.notifying, value: 0x0001)
        await fixture.manager.waitForBondStoreWrites()
        #expect(await setup.store.gattState(for: BondedSetup.identity(1))?.cccds == [cccd: 0x0001])
        await fixture.disconnect(first)

        // Away: the values change; the store is flagged once however often.
        for value in 0..<10 { #expect(fixture.manager.updateValue([0x70, UInt8(value)], for: TestIDs.notifying)) }
        await fixture.manager.waitForBondStoreWrites()
        #expect(await setup.store.gattState(for: BondedSetup.identity(1))?.changedWhileAway == [valueHandle])

        let second = try await fixture.connect(1)
        #expect(fixture.subscribedEvents(TestIDs.notifying) == 1)
        try await fixture.encrypt(second)
        // No CCCD write on this link: restored, announced, and the missed value sent.
        #expect(fixture.subscribedEvents(TestIDs.notifying) == 2)
        await second.notifications.wait(for: 1)
        #expect(second.notifications.all.map(\.value) == [[0x70, 9]])
        #expect(await second.request(.readRequest(handle: cccd)) == .readResponse(value: [0x01, 0x00]))
        #expect(fixture.manager.updateValue([0x71], for: TestIDs.notifying))
        await second.notifications.wait(for: 2)
        #expect(second.notifications.all.map(\.value) == [[0x70, 9], [0x71]])
        await fixture.manager.waitForBondStoreWrites()
        #expect(await setup.store.gattState(for: BondedSetup.identity(1))?.changedWhileAway == [])
        await fixture.manager.shutdown()
    }

    @Test func anUnbondedCentralsSubscriptionEndsWithItsLink() async throws {
        let setup = BondedSetup()
        let fixture = try await setup.fixture()
        let cccd = try #require(await fixture.database.cccdHandle(for: TestIDs.notifying))
        let first = try await fixture.connect(2)
        try await fixture.subscribeAndWait(first, to: TestIDs.notifying, value: 0x0001)
        await fixture.disconnect(first)
        #expect(fixture.manager.updateValue([0x01], for: TestIDs.notifying))

        let second = try await fixture.connect(2)
        #expect(await second.request(.readRequest(handle: cccd)) == .readResponse(value: [0x00, 0x00]))
        #expect(fixture.manager.updateValue([0x02], for: TestIDs.notifying))
        await fixture.roundTrip(second)
        #expect(second.notifications.all.isEmpty)
        #expect(try await setup.store.count() == 0)
        await fixture.manager.shutdown()
    }

    /// Legacy Just Works over the air, the central distributing no keys.
    @Test func aSubscriptionMadeBeforePairingCompletesIsStoredWithTheBond() async throws {
        let setup = BondedSetup()
        let fixture = try await setup.fixture()
        let cccd = try #require(await fixture.database.cccdHandle(for: TestIDs.indicating))
        let client = try await fixture.connect(3)
        try await fixture.subscribeAndWait(client, to: TestIDs.indicating, value: 0x0002)

        let features = PairingFeatures(ioCapability: .noInputNoOutput, authentication: [.bonding], initiatorKeys: [],
                                       responderKeys: [.encryptionKey])
        let preq = SMPCommand.pairingRequest(features).encoded
        client.sendSMP(preq)
        await client.smp.wait(for: 1)
        let pres = client.smp.all[0]
        let tk = [UInt8](repeating: 0, count: 16), mrand = SecureRandom.bytes(16)
        let mconfirm = try SecurityFunctions.c1(k: tk, r: mrand, preq: preq, pres: pres, initiator: BondedSetup.identity(3),
                                                responder: DeviceAddress(fixture.address, type: .randomDevice))
        client.sendSMP([0x03] + mconfirm)
        await client.smp.wait(for: 2)
        client.sendSMP([0x04] + mrand)
        await client.smp.wait(for: 3)
        let stk = try SecurityFunctions.s1(k: tk, r1: Array(client.smp.all[2].dropFirst()), r2: mrand)
        #expect(await client.link.startEncryption(ltk: stk, random: 0, ediv: 0) == .encrypted(keySize: 16))
        await fixture.recorder.wait { if case .paired(_, bonded: true) = $0 { return true } else { return false } }

        let stored = try #require(await setup.store.gattState(for: BondedSetup.identity(3)))
        #expect(stored.cccds == [cccd: 0x0002])
        #expect(stored.databaseHash == (await fixture.database).databaseHash)
        // Live from now on: a later write is stored too.
        try await fixture.subscribeAndWait(client, to: TestIDs.notifying, value: 0x0001)
        await fixture.manager.waitForBondStoreWrites()
        let notifyingCCCD = try #require(await fixture.database.cccdHandle(for: TestIDs.notifying))
        #expect(await setup.store.gattState(for: BondedSetup.identity(3))?.cccds == [cccd: 0x0002, notifyingCCCD: 0x0001])
        await fixture.manager.shutdown()
    }

    @Test func aProtectedValueWaitsForEncryption() async throws {
        let setup = BondedSetup()
        try await setup.bond(4)
        let fixture = try await setup.fixture()
        let first = try await fixture.connect(4)
        try await fixture.encrypt(first)
        try await fixture.subscribeAndWait(first, to: BondedSetup.sealed, value: 0x0001)
        await fixture.disconnect(first)

        // Back, not encrypted yet: nothing protected reaches it, and it cannot subscribe by itself.
        let second = try await fixture.connect(4)
        #expect(fixture.manager.updateValue([0x5E, 0x01], for: BondedSetup.sealed))
        let cccd = try #require(await fixture.database.cccdHandle(for: BondedSetup.sealed))
        #expect(await second.request(.writeRequest(handle: cccd, value: [0x01, 0x00]))
                == .errorResponse(requestOpcode: .writeRequest, handle: cccd, error: .insufficientEncryption))
        #expect(fixture.manager.updateValue([0x5E, 0x02], for: BondedSetup.sealed))
        await fixture.roundTrip(second)
        #expect(second.notifications.all.isEmpty)

        try await fixture.encrypt(second)
        await second.notifications.wait(for: 1)
        #expect(second.notifications.all.map(\.value) == [[0x5E, 0x02]])
        await fixture.manager.shutdown()
    }

    @Test func aRestartedPeripheralOnTheSameStoreRestoresTheSubscription() async throws {
        let setup = BondedSetup()
        try await setup.bond(5)
        let before = try await setup.fixture()
        let first = try await before.connect(5)
        try await before.encrypt(first)
        try await before.subscribeAndWait(first, to: TestIDs.indicating, value: 0x0002)
        await before.manager.shutdown()

        let after = try await setup.fixture()
        let second = try await after.connect(5)
        try await after.encrypt(second)
        #expect(after.subscribedEvents(TestIDs.indicating) == 1)
        #expect(after.manager.updateValue([0x1D], for: TestIDs.indicating))
        await second.indications.wait(for: 1)
        #expect(second.indications.all.map(\.value) == [[0x1D]])
        await after.manager.shutdown()
    }

    @Test func storedHandlesOfAnotherDatabaseAreDroppedAndServiceChangedIndicated() async throws {
        let setup = BondedSetup()
        // Learn the handles of the database the fixture builds.
        let probe = try await setup.fixture()
        let database = await probe.database
        await probe.manager.shutdown()
        let notifyingCCCD = try #require(database.cccdHandle(for: TestIDs.notifying))
        let serviceChangedCCCD = try #require(database.cccdHandle(for: .serviceChanged))
        let serviceChanged = try #require(database.valueHandle(for: .serviceChanged))
        let echo = try #require(database.valueHandle(for: TestIDs.echo))
        try await setup.bond(6, gattState: PeerGATTState(
            cccds: [notifyingCCCD: 0x0001, serviceChangedCCCD: 0x0002], clientSupportedFeatures: [0x01], changeAware: true,
            databaseHash: [UInt8](repeating: 0xDB, count: 16), changedWhileAway: [database.valueHandle(for: TestIDs.notifying)!]))

        let fixture = try await setup.fixture()
        let client = try await fixture.connect(6, confirmIndications: false)
        #expect(fixture.manager.updateValue([0x01], for: TestIDs.notifying))
        try await fixture.encrypt(client)
        await client.indications.wait(for: 1)
        #expect(client.indications.all.map(\.handle) == [serviceChanged])
        #expect(client.indications.all.map(\.value) == [ServiceChangedRange.value(for: 0x0001...0xFFFF)])
        // Change-unaware (robust caching) until it confirms: told the database is out of sync.
        #expect(await client.request(.readRequest(handle: echo))
                == .errorResponse(requestOpcode: .readRequest, handle: echo, error: .databaseOutOfSync))
        #expect(fixture.manager.updateValue([0x02], for: TestIDs.notifying))
        await fixture.roundTrip(client)
        #expect(client.notifications.all.isEmpty)
        await fixture.manager.waitForBondStoreWrites()
        let stored = try #require(await setup.store.gattState(for: BondedSetup.identity(6)))
        #expect(stored.cccds == [serviceChangedCCCD: 0x0002])
        #expect(stored.databaseHash == database.databaseHash)
        #expect(stored.changedWhileAway.isEmpty)
        #expect(!stored.changeAware)

        // Confirming Service Changed (as its request after Out Of Sync would) makes it change-aware; the store follows.
        client.send(.handleValueConfirmation)
        #expect(await client.request(.readRequest(handle: echo)) == .readResponse(value: [0x01]))
        await fixture.manager.waitForBondStoreWrites()
        #expect(await setup.store.gattState(for: BondedSetup.identity(6))?.changeAware == true)
        await fixture.manager.shutdown()
    }
}
