import BLECore
import BridgeConfiguration
import Foundation
@testable import HCI
import Peripheral
import Synchronization
import Testing
import TestSupport
@testable import BLESensorDaemon

/// `connection: last-slot-for-bonded` as strangers meet it: the last slot is refused to an
/// address no bond knows, and a central naming a bond keeps it only by encrypting with it.
@Suite struct ReservedSlotTests {
    final class FakeBonds: BondProof {
        let state = Mutex<(bonds: Bool, proven: Set<LinkID>, asked: [LinkID])>((true, [], []))
        var hasBonds: Bool { state.withLock { $0.bonds } }
        func isProvenBonded(_ link: Link) -> Bool { state.withLock { $0.proven.contains(link.id) } }
        func requestSecurity(on link: Link) { state.withLock { $0.asked.append(link.id) } }
        func prove(_ link: Link) { state.withLock { _ = $0.proven.insert(link.id) } }
        var asked: [LinkID] { state.withLock { $0.asked } }
    }

    static func setUp(max: Int, enabled: Bool = true, window: Bool = false) -> (ReservedSlot, CentralRegistry, ManualClock, FakeBonds, SilentCentralsTests.Drops) {
        let clock = ManualClock(), registry = CentralRegistry(services: []), bonds = FakeBonds(), drops = SilentCentralsTests.Drops()
        let slot = ReservedSlot(enabled: enabled, maxCentrals: max, clock: clock, registry: registry, bonds: bonds,
                                windowOpen: { window }) { central, why in
            drops.list.withLock { $0.append((central, why)) }
        }
        return (slot, registry, clock, bonds, drops)
    }

    static func connect(_ central: ConnectedCentral, _ slot: ReservedSlot, _ registry: CentralRegistry) {
        registry.connected(central)
        slot.connected(central)
    }

    static func bonded(_ last: UInt8) -> ConnectedCentral {
        let central = SilentCentralsTests.central(last)
        central.link.setBonded(true)
        return central
    }

    @Test func aStrangerTakingTheLastSlotIsDroppedAtOnce() {
        let (slot, registry, _, _, drops) = Self.setUp(max: 3)
        let first = SilentCentralsTests.central(1), second = SilentCentralsTests.central(2), third = SilentCentralsTests.central(3)
        Self.connect(first, slot, registry)
        Self.connect(second, slot, registry)
        #expect(drops.centrals.isEmpty)
        Self.connect(third, slot, registry)
        #expect(drops.centrals == [third])
        #expect(drops.reasons.first?.contains("the last of 3 connection slots is kept for bonded centrals") == true)
    }

    @Test func aBondedCentralKeepsTheLastSlotByEncryptingWithItsBond() {
        let (slot, registry, clock, bonds, drops) = Self.setUp(max: 2)
        Self.connect(SilentCentralsTests.central(1), slot, registry)
        let owner = Self.bonded(2)
        Self.connect(owner, slot, registry)
        // Asked to encrypt at once: a phone may otherwise encrypt only when it reads something protected.
        #expect(bonds.asked == [owner.link.id])
        bonds.prove(owner.link)
        clock.advance(by: .seconds(600))
        #expect(drops.centrals.isEmpty)
    }

    @Test func anAddressClaimingABondWithoutItsKeyLosesTheLastSlot() {
        let (slot, registry, clock, _, drops) = Self.setUp(max: 2)
        Self.connect(SilentCentralsTests.central(1), slot, registry)
        let impostor = Self.bonded(2)
        Self.connect(impostor, slot, registry)
        clock.advance(by: ReservedSlot.proofDeadline - .seconds(1))
        #expect(drops.centrals.isEmpty)
        clock.advance(by: .seconds(1))
        #expect(drops.centrals == [impostor])
        #expect(drops.reasons.first?.contains("did not encrypt with that bond within 10 s") == true)
    }

    @Test func anOpenPairingWindowLetsTheOwnersNewPhoneIntoTheLastSlot() {
        let (slot, registry, _, _, drops) = Self.setUp(max: 2, window: true)
        Self.connect(SilentCentralsTests.central(1), slot, registry)
        Self.connect(SilentCentralsTests.central(2), slot, registry)
        #expect(drops.centrals.isEmpty)
    }

    @Test func nothingIsReservedWithoutBondsOneSlotOrTheSetting() {
        for (max, enabled, hasBonds) in [(2, true, false), (1, true, true), (2, false, true)] {
            let (slot, registry, _, bonds, drops) = Self.setUp(max: max, enabled: enabled)
            bonds.state.withLock { $0.bonds = hasBonds }
            for index in 1...UInt8(max) { Self.connect(SilentCentralsTests.central(index), slot, registry) }
            #expect(drops.centrals.isEmpty, "max \(max), enabled \(enabled), bonds \(hasBonds)")
        }
    }

    @Test func theConfigurationNeedsTwoSlotsForIt() {
        let boards = ServiceDeviceAccessTests.boards
        let sensors = "sensors:\n  - {name: t, driver: tmp102, publish: [temperature-measurement]}\n"
        let one = ConfigurationLoader.load(yaml: "board: simulated\nconnection:\n  last-slot-for-bonded: true\n" + sensors,
                                           fileName: "a.yaml", boardsDirectories: [boards], environment: [:])
        guard case let .failure(problems) = one else { Issue.record("one slot reserved for bonded centrals was accepted"); return }
        #expect(problems.problems.contains { "\($0)".contains("needs advertising: max-centrals 2 or more") })
        let two = ConfigurationLoader.load(yaml: "board: simulated\nadvertising:\n  max-centrals: 2\nconnection:\n  last-slot-for-bonded: true\n" + sensors,
                                           fileName: "b.yaml", boardsDirectories: [boards], environment: [:])
        #expect((try? two.get())?.connection.lastSlotForBonded == true)
        let standard = ConfigurationLoader.load(yaml: "board: simulated\n" + sensors, fileName: "c.yaml", boardsDirectories: [boards], environment: [:])
        #expect((try? standard.get())?.connection.lastSlotForBonded == false)
    }
}
