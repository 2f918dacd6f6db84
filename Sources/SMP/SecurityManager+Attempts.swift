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
            guard state.sessions[link.id]?.serial == serial, state.sessions[link.id]?.session.isFinished == false else {
                timer.cancel()
                return nil
            }
            let old = state.sessions[link.id]?.timer
            state.sessions[link.id]?.timer = timer
            return old
        }
        old?.cancel()
    }

    func timedOut(_ link: Link, serial: UInt64) {
        let expired = state.withLock { state -> Bool in
            guard let entry = state.sessions[link.id], entry.serial == serial, !entry.session.isFinished else { return false }
            state.sessions[link.id]?.session = Self.finished(entry.session)
            state.deadLinks.insert(link.id)
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
            var wait = policy.repeatedAttemptsBackoff
            for _ in 1..<min(failures, 16) { wait = min(wait * 2, policy.maximumRepeatedAttemptsBackoff) }
            // Pruned before the peer that just failed goes in, so its own wait is never forgotten.
            Self.prune(&state.attempts, now: now, forgetAfter: policy.maximumRepeatedAttemptsBackoff, keeping: Self.maximumTrackedAttempts - 1)
            state.attempts[peer] = Attempts(failures: failures, blockedUntil: now + wait)
        }
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

    /// Peers with a remembered failure (tests, status).
    var trackedAttemptCount: Int { state.withLock { $0.attempts.count } }

    func pairingFailed(on link: Link, serial: UInt64, reason: PairingFailureReason, sent: Bool, detail: String) {
        let timer = state.withLock { $0.sessions[link.id]?.serial == serial ? $0.sessions[link.id]?.timer : nil }
        timer?.cancel()
        if reason.isFailedAuthentication { recordFailure(of: link) }
        logger.warning("\(link.id): pairing failed\(sent ? "" : " by the peer"): \(reason): \(detail)")
        eventSink.yield(.pairingFailed(link, reason, detail: detail))
        resolvePairing(on: link, .failure(.pairingFailed(reason, detail: detail)))
    }
}
