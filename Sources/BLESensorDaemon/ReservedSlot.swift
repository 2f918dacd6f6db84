import BLECore
import HCI
import Peripheral
import SMP

/// What the reserved slot needs to know of bonds; the Security Manager in the daemon.
protocol BondProof: Sendable {
    var hasBonds: Bool { get }
    /// Encrypted with its bond's key on this link.
    func isProvenBonded(_ link: Link) -> Bool
    /// Sends a Security Request, so a bonded central encrypts now.
    func requestSecurity(on link: Link)
}

extension SecurityManager: BondProof {
    var hasBonds: Bool { !bonds.isEmpty }
}

/// `connection: last-slot-for-bonded`: the last connection slot is for bonded centrals, so that
/// strangers (or one that just pairs and idles) filling the others never lock the owner's phone
/// out. A central taking the last slot whose address is no bond's (directly or through the IRK it
/// distributed) is dropped at once; one that names a bond must encrypt with it within
/// `proofDeadline` (it is asked to), as an address alone is anyone's to claim. While a pairing
/// window is open the slot is free for all: that is when the owner brings a new phone.
///
/// Enforced by the host, not with the controller's Filter Accept List: it works on every
/// controller, and with phones' resolvable private addresses, which a Filter Accept List matches
/// only through the controller's resolving list. The cost: a stranger's connection is made before
/// it is dropped, so one reconnecting in a loop competes for the freed slot.
struct ReservedSlot: Sendable {
    /// A bonded phone asked by a Security Request encrypts within a second or two.
    static let proofDeadline = Duration.seconds(10)

    let enabled: Bool
    let maxCentrals: Int
    let clock: any HostClock
    let registry: CentralRegistry
    let bonds: (any BondProof)?
    /// A pairing window is open (`blesensor pair --window`).
    let windowOpen: @Sendable () -> Bool
    let drop: @Sendable (ConnectedCentral, String) -> Void

    /// Call after the registry counted `central`.
    func connected(_ central: ConnectedCentral) {
        guard enabled, maxCentrals >= 2, registry.count >= maxCentrals, let bonds, bonds.hasBonds, !windowOpen() else { return }
        let link = central.link
        guard link.isBonded else {
            drop(central, "the last of \(maxCentrals) connection slots is kept for bonded centrals and \(link.peer) is not one (connection: last-slot-for-bonded)")
            return
        }
        guard !bonds.isProvenBonded(link) else { return }
        bonds.requestSecurity(on: link)
        let deadline = Self.proofDeadline
        clock.schedule(after: deadline) {
            guard link.isOpen, !bonds.isProvenBonded(link) else { return }
            drop(central, "it took the last connection slot, kept for bonded centrals, as \(link.identity) but did not encrypt with that bond within \(deadline.wholeMilliseconds / 1000) s (connection: last-slot-for-bonded)")
        }
    }
}
