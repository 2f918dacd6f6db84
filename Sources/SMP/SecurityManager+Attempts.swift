import BLECore
import Bonding
import Foundation
import HCI
import SecurityToolbox

/// The SMP timeout (Vol 3 Part H 3.4) and the wait after failed attempts (2.3.6).
extension SecurityManager {
    // MARK: Timeout and repeated attempts

    /// (Re)starts the 30 s SMP timer (3.4): it runs from the last command of the pairing.
    func armTimer(on link: Link, serial: UInt64) {
        let timeout = configuration.policy.timeout
        let timer = clock.schedule(after: timeout) { [weak self] in self?.timedOut(link, serial: serial) }
        let old = state.withLock { state -> TimerHandle? in
            guard let entry = state.links[link.id]?.session, entry.serial == serial, !entry.session.isFinished else {
                timer.cancel()
                return nil
            }
            state.links[link.id]?.session?.timer = timer
            return entry.timer
        }
        old?.cancel()
    }

    func timedOut(_ link: Link, serial: UInt64) {
        let expired = state.withLock { state -> Bool in
            guard let entry = state.links[link.id]?.session, entry.serial == serial, !entry.session.isFinished else { return false }
            state.links[link.id]?.session?.session = Self.finished(entry.session)
            state.links[link.id]?.smpTimedOut = true
            return true
        }
        guard expired else { return }
        // No Pairing Failed: after the timeout no SMP command may be sent on this link.
        recordFailure(of: link)
        logger.warning("\(link.id): pairing timed out (no SMP command for \(configuration.policy.timeout)); no more pairing on this connection")
        eventSink.yield(.pairingFailed(link, .unspecifiedReason, detail: "SMP timeout"))
        resolvePairing(on: link, .failure(.timeout))
    }

    /// Only a failed authentication (a wrong passkey, a mismatch) makes the peer wait before the
    /// next attempt (2.3.6 guards against guessing); a policy refusal (a closed pairing window, SC
    /// only, a full store) does not, so a phone can pair the moment the window opens.
    func recordFailure(of link: Link) {
        let policy = configuration.policy
        let peer = link.identity.bondIdentity
        let now = clock.now
        state.withLock { state in
            let failures = (state.attempts.removeValue(forKey: peer)?.failures ?? 0) + 1
            let wait = Self.doublingWait(first: policy.repeatedAttemptsBackoff, longest: policy.maximumRepeatedAttemptsBackoff,
                                         after: failures - 1)
            // Pruned before the peer that just failed goes in, so its own wait is never forgotten.
            Self.prune(&state.attempts, now: now, forgetAfter: policy.maximumRepeatedAttemptsBackoff, keeping: Self.maximumTrackedAttempts - 1)
            state.attempts[peer] = Attempts(failures: failures, blockedUntil: now + wait)
        }
    }

    /// `first`, doubled `doublings` times, never above `longest`.
    static func doublingWait(first: Duration, longest: Duration, after doublings: Int) -> Duration {
        var wait = first
        for _ in 0..<min(max(doublings, 0), 16) { wait = min(wait * 2, longest) }
        return wait
    }

    /// At most this many peers are remembered: rotating addresses must not grow the table for ever.
    static let maximumTrackedAttempts = 256

    /// Forgets peers whose wait ended longer than `forgetAfter` ago, then the soonest-free ones
    /// beyond `keeping`.
    static func prune(_ attempts: inout [DeviceAddress: Attempts], now: MonotonicInstant, forgetAfter: Duration,
                      keeping: Int = maximumTrackedAttempts) {
        attempts = attempts.filter { now < $0.value.blockedUntil + forgetAfter }
        guard attempts.count > keeping else { return }
        let kept = attempts.sorted { $0.value.blockedUntil > $1.value.blockedUntil }.prefix(keeping)
        attempts = Dictionary(uniqueKeysWithValues: kept.map { ($0.key, $0.value) })
    }

    // MARK: Guessing a fixed passkey

    /// Wrong passkeys anyone may make before all passkey pairing waits: an owner's typos.
    static let freePasskeyGuesses = 3
    static let firstPasskeyWait = Duration.seconds(60)
    static let longestPasskeyWait = Duration.seconds(3600)

    /// A wrong passkey (a failed confirm value in Passkey Entry) against a fixed passkey: past the
    /// free ones every passkey pairing, from any address, waits; each further failure doubles the
    /// wait, so the ~20 guesses that reveal a passkey take days. A random passkey changes each time.
    func recordPasskeyGuess() {
        guard case .fixed = configuration.policy.passkey else { return }
        let now = clock.now
        let (failures, wait) = state.withLock { state -> (Int, Duration?) in
            state.passkeyGuesses.failures += 1
            let failures = state.passkeyGuesses.failures
            guard failures > Self.freePasskeyGuesses else { return (failures, nil) }
            let wait = Self.doublingWait(first: Self.firstPasskeyWait, longest: Self.longestPasskeyWait,
                                         after: failures - Self.freePasskeyGuesses - 1)
            state.passkeyGuesses.blockedUntil = now + wait
            return (failures, wait)
        }
        guard let wait else { return }
        logger.warning("\(failures) wrong passkeys since the last right one, from any central: someone may be guessing the fixed passkey; passkey pairing waits \(wait.wholeMilliseconds / 1000) s. A random passkey (security.passkey: random) cannot be guessed this way")
    }

    /// How long passkey pairing still waits after too many wrong passkeys; nil when it may go on.
    var passkeyPairingWait: Duration? {
        let now = clock.now
        return state.withLock { $0.passkeyGuesses.blockedUntil }.flatMap { $0 > now ? $0 - now : nil }
    }

    /// Peers with a remembered failure (tests, status).
    var trackedAttemptCount: Int { state.withLock { $0.attempts.count } }

    func pairingFailed(on link: Link, serial: UInt64, reason: PairingFailureReason, sent: Bool, detail: String) {
        let (timer, method) = state.withLock { state in
            guard let entry = state.links[link.id]?.session, entry.serial == serial else { return (TimerHandle?.none, PairingMethod?.none) }
            return (entry.timer, entry.session.method)
        }
        timer?.cancel()
        if reason.isFailedAuthentication {
            recordFailure(of: link)
            if case .passkeyEntry? = method { recordPasskeyGuess() }
        }
        logger.warning("\(link.id): pairing failed\(sent ? "" : " by the peer"): \(reason): \(detail)")
        eventSink.yield(.pairingFailed(link, reason, detail: detail))
        resolvePairing(on: link, .failure(.pairingFailed(reason, detail: detail)))
    }
}
