import BLECore
import GATT
@testable import HCI
import Peripheral
import Synchronization
import Testing
import TestSupport
@testable import BLESensorDaemon

/// One silent connection must not lock everyone out: a central that neither encrypts nor
/// subscribes is dropped once the slots are full or encryption is required, on the injected clock.
@Suite struct SilentCentralsTests {
    final class Drops: Sendable {
        let list = Mutex<[(ConnectedCentral, String)]>([])
        var centrals: [ConnectedCentral] { list.withLock { $0.map(\.0) } }
        var reasons: [String] { list.withLock { $0.map(\.1) } }
    }

    static func central(_ last: UInt8) -> ConnectedCentral {
        ConnectedCentral(link: Link(handle: UInt16(last), role: .peripheral,
                           peer: DeviceAddress(BluetoothAddress(littleEndian: [last, 0, 0, 0, 0x66, 0xC0]), type: .randomDevice),
                           parameters: .init(interval: 24, latency: 0, supervisionTimeout: 400)))
    }

    static func watch(max: Int, securityRequired: Bool = false) -> (SilentCentrals, CentralRegistry, ManualClock, Drops) {
        let clock = ManualClock(), registry = CentralRegistry(services: []), drops = Drops()
        let silent = SilentCentrals(timeout: .seconds(60), maxCentrals: max, securityRequired: securityRequired,
                                    clock: clock, registry: registry) { central, why in drops.list.withLock { $0.append((central, why)) } }
        return (silent, registry, clock, drops)
    }

    static func connect(_ central: ConnectedCentral, _ silent: SilentCentrals, _ registry: CentralRegistry) {
        registry.connected(central)
        silent.connected(central)
    }

    @Test func aSilentCentralHoldingTheLastSlotIsDropped() {
        let (silent, registry, clock, drops) = Self.watch(max: 1)
        let squatter = Self.central(1)
        Self.connect(squatter, silent, registry)
        clock.advance(by: .seconds(59))
        #expect(drops.centrals.isEmpty)
        clock.advance(by: .seconds(1))
        #expect(drops.centrals == [squatter])
        #expect(drops.reasons.first?.contains("neither encrypted nor subscribed within 60 s and all 1 connection slot(s) are taken") == true)
    }

    @Test func aSilentCentralIsLeftWhileSlotsAreFreeAndDroppedOnceTheyAreNot() {
        let (silent, registry, clock, drops) = Self.watch(max: 2)
        let quiet = Self.central(1)
        Self.connect(quiet, silent, registry)
        clock.advance(by: .seconds(60))
        #expect(drops.centrals.isEmpty)
        // Another central takes the last slot: the quiet one goes at its next look.
        let busy = Self.central(2)
        Self.connect(busy, silent, registry)
        registry.subscribed(busy, CharacteristicID("heart-rate.measurement"))
        clock.advance(by: .seconds(60))
        #expect(drops.centrals == [quiet])
    }

    @Test func aCentralThatSubscribesOrEncryptsStays() {
        let (silent, registry, clock, drops) = Self.watch(max: 2, securityRequired: true)
        let subscriber = Self.central(1), encrypted = Self.central(2)
        Self.connect(subscriber, silent, registry)
        Self.connect(encrypted, silent, registry)
        registry.subscribed(subscriber, CharacteristicID("heart-rate.measurement"))
        encrypted.link.expectEncryption(with: EncryptionKeyProperties(keySize: 16, authenticated: false, secureConnections: true))
        _ = encrypted.link.encryptionChanged(enabled: true, controllerKeySize: 16)
        clock.advance(by: .seconds(600))
        #expect(drops.centrals.isEmpty)
    }

    @Test func withEncryptionRequiredASilentCentralGoesEvenWithSlotsFree() {
        let (silent, registry, clock, drops) = Self.watch(max: 4, securityRequired: true)
        let idle = Self.central(1)
        Self.connect(idle, silent, registry)
        clock.advance(by: .seconds(60))
        #expect(drops.centrals == [idle])
        #expect(drops.reasons.first?.contains("what it could read needs encryption") == true)
    }

    @Test func aCentralThatLeftIsNotDropped() {
        let (silent, registry, clock, drops) = Self.watch(max: 1)
        let gone = Self.central(1)
        Self.connect(gone, silent, registry)
        registry.disconnected(gone)
        clock.advance(by: .seconds(60))
        #expect(drops.centrals.isEmpty)
    }
}
