import BLECore
import BridgeConfiguration
import ControlSocket
import Foundation
import HCI
import Logging
import SMP
import Synchronization

/// The user side of pairing on a board with no user: the configuration's policy, a pairing window
/// opened from the CLI, passkeys written to the log and shown in status, numeric comparison
/// confirmed while pairing is allowed (the number is logged for whoever watches).
final class DaemonPairingAgent: PairingAgent {
    struct State {
        var windowCloses: MonotonicInstant? = nil
        var lastPasskey: UInt32? = nil
        var lastNewCentral: MonotonicInstant? = nil
        /// `blesensor pair --follow` through the control server's `watch-pairing`.
        var observer: (@Sendable (PairingEvent) -> Void)? = nil
        var windowTimer: TimerHandle? = nil
    }


    let settings: SecuritySettings
    private let clock: any HostClock
    private let logger: Logger
    /// Asked before a bond is made that the store may not have room for.
    private let storeHealth: BondStoreHealth?
    private let state = Mutex(State())

    init(settings: SecuritySettings, clock: any HostClock, storeHealth: BondStoreHealth? = nil, logger: Logger) {
        self.settings = settings
        self.storeHealth = storeHealth
        self.clock = clock
        self.logger = logger
    }

    /// Opens (or extends) the pairing window; returns when it closes.
    func openWindow(for duration: Duration) -> MonotonicInstant {
        let closes = clock.now + duration
        // Said when it closes, for whoever follows pairing; a later window replaces the timer.
        let timer = clock.schedule(at: closes) { [weak self] in self?.windowTimerFired(closes) }
        let previous = state.withLock { state -> TimerHandle? in
            state.windowCloses = closes
            defer { state.windowTimer = timer }
            return state.windowTimer
        }
        previous?.cancel()
        logger.notice("pairing window open for \(duration.wholeMilliseconds / 1000) s")
        report(PairingEvent(kind: .windowOpened, detail: "\(duration.wholeMilliseconds / 1000) s"))
        return closes
    }

    private func windowTimerFired(_ closes: MonotonicInstant) {
        guard state.withLock({ $0.windowCloses == closes }) else { return }
        report(PairingEvent(kind: .windowClosed))
    }

    /// Where pairing events go (the control server); nil stops them.
    func setObserver(_ observer: (@Sendable (PairingEvent) -> Void)?) {
        state.withLock { $0.observer = observer }
    }

    func report(_ event: PairingEvent) {
        state.withLock { $0.observer }?(event)
    }

    /// Seconds left in the pairing window, nil when none is open.
    var windowRemaining: Duration? {
        let now = clock.now
        return state.withLock { $0.windowCloses }.flatMap { $0 > now ? $0 - now : nil }
    }

    /// Whether a central may pair now (also decides numeric comparison).
    var pairingAllowed: Bool {
        switch settings.pairing {
        case .always: return true
        case .never: return false
        case .window: return windowRemaining != nil
        }
    }

    /// The passkey a central types: the fixed one, or the last random one shown.
    var passkey: UInt32? {
        if case let .fixed(value) = settings.passkey { return value }
        return state.withLock { $0.lastPasskey }
    }

    func mayPair(_ link: Link, request: PairingFeatures) async -> PairingDecision {
        let decision = policyDecision(link)
        guard decision == .allow, request.authentication.contains(.bonding), let storeHealth,
              let shortage = await storeHealth.refusalForNewBond() else { return decision }
        // Refused before any key exists: a phone bonded to a device that could not store the bond
        // would fail to reconnect after the next restart, with nothing telling its user why.
        return .refuse(.unspecifiedReason, because: "the bond could not be stored: \(shortage)")
    }

    private func policyDecision(_ link: Link) -> PairingDecision {
        switch settings.pairing {
        case .always:
            return admitNewCentral(link)
        case .never:
            return .refuse(.pairingNotSupported, because: "pairing is turned off (security.pairing: never)")
        case .window:
            guard windowRemaining != nil else {
                return .refuse(.pairingNotSupported, because: "no pairing window is open; run 'blesensor pair --window 60' first")
            }
            return .allow
        }
    }

    /// With `pairing: always`, a new bond may be made once per `new-centrals-every`, so rotating
    /// addresses cannot fill the store in a burst. Paced from the last bond stored, not the last
    /// request: a stranger sending Pairing Requests it never completes holds no one back. Only a
    /// link encrypted with its bond is exempt: a bonded address alone is anyone's to claim.
    private func admitNewCentral(_ link: Link) -> PairingDecision {
        let interval = settings.newCentralsEvery
        guard interval > .zero, !(link.isBonded && link.security.isEncrypted) else { return .allow }
        let now = clock.now
        let wait = state.withLock { state -> Duration? in
            guard let last = state.lastNewCentral, now - last < interval else { return nil }
            return interval - (now - last)
        }
        guard let wait else { return .allow }
        return .refuse(.repeatedAttempts, because: "a new central may pair once every \(interval.wholeMilliseconds / 1000) s "
                       + "(security: new-centrals-every); try again in \(max(1, wait.wholeMilliseconds / 1000)) s")
    }

    /// A pairing stored a bond: the next new central waits `new-centrals-every` from now.
    func bondStored() {
        let now = clock.now
        state.withLock { $0.lastNewCentral = now }
    }

    func display(passkey: UInt32, on link: Link) async {
        state.withLock { $0.lastPasskey = passkey }
        report(PairingEvent(kind: .passkey, peer: "\(link.peer)", passkey: PairingStatus.passkeyText(passkey)))
        // The digits go only to an administrator (`blesensor pair --passkey`), never to the log.
        logger.notice("\(link.id): \(link.peer) is asking for the passkey; `sudo blesensor pair --passkey` shows it")
    }

    func enterPasskey(on link: Link) async -> UInt32? {
        // Nobody types on a headless board: only a fixed passkey can stand in for it.
        if case let .fixed(value) = settings.passkey { return value }
        logger.warning("\(link.id): the pairing needs a passkey typed here; set security.passkey to a fixed value or use display-only")
        return nil
    }

    /// A person answers through `confirm-command`; without one the comparison is accepted while
    /// pairing is allowed, and its key is unauthenticated (no one compared).
    func confirm(numericComparison value: UInt32, on link: Link) async -> ComparisonAnswer {
        let number = String(format: "%06u", value)
        report(PairingEvent(kind: .comparison, peer: "\(link.peer)", number: number,
                            detail: !pairingAllowed ? "rejected: pairing is not allowed now"
                                : settings.confirmCommand == nil ? "accepted with no one comparing (no confirm-command): the key is unauthenticated"
                                : "asking \(settings.confirmCommand ?? "")"))
        guard pairingAllowed else {
            logger.notice("\(link.id): numeric comparison \(number) rejected (pairing is not allowed now)")
            return .rejected
        }
        guard let command = settings.confirmCommand else {
            logger.notice("\(link.id): numeric comparison \(number) accepted with no one comparing (no confirm-command): the key is unauthenticated")
            return .acceptedWithoutComparing
        }
        let outcome = await PairingConfirmation.ask(command, number: number, peer: "\(link.peer.address)", clock: clock)
        switch outcome {
        case .confirmed:
            logger.notice("\(link.id): numeric comparison \(number) confirmed by \(command)")
            return .confirmedByPerson
        case let .refused(why):
            logger.notice("\(link.id): numeric comparison \(number) not confirmed: \(why)")
            return .rejected
        }
    }
}
