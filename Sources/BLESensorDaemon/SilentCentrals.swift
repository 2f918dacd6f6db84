import BLECore
import Peripheral

/// Drops a central that holds a connection slot without using it: neither encrypted nor
/// subscribed `timeout` after it connected, while every slot is taken (others cannot connect) or
/// the configuration requires encryption (it can read nothing protected without pairing). A
/// silent central while slots are free is looked at again after another `timeout`.
struct SilentCentrals: Sendable {
    let timeout: Duration
    let maxCentrals: Int
    let securityRequired: Bool
    let clock: any HostClock
    let registry: CentralRegistry
    /// Disconnects the central; the text says why, for the log.
    let drop: @Sendable (ConnectedCentral, String) -> Void

    func connected(_ central: ConnectedCentral) {
        guard timeout > .zero else { return }
        clock.schedule(after: timeout) { check(central) }
    }

    func check(_ central: ConnectedCentral) {
        guard central.link.isOpen, let subscribed = registry.hasSubscriptions(central) else { return }
        // Using its slot: watched no longer.
        if subscribed || central.link.security.isEncrypted { return }
        let full = registry.count >= maxCentrals
        guard full || securityRequired else {
            clock.schedule(after: timeout) { check(central) }
            return
        }
        let why = full ? "all \(maxCentrals) connection slot(s) are taken" : "what it could read needs encryption"
        drop(central, "it neither encrypted nor subscribed within \(timeout.wholeMilliseconds / 1000) s and \(why) (connection: silent-timeout)")
    }
}
