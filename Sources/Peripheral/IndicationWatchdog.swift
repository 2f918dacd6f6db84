import Synchronization

/// The ATT transaction timeout for indications (Core Vol 3 Part F 3.3.3): when a central leaves an
/// indication unconfirmed for 30 s, no further ATT PDUs may be sent on that bearer, so the link is
/// disconnected. One timer per connection, re-armed on every confirmation; it never polls.
final class IndicationWatchdog: Sendable {
    struct Watch {
        var outstanding = 0
        var lastProgress = ContinuousClock.now
        var timer: Task<Void, Never>? = nil
    }

    private let watches = Mutex<[UInt16: Watch]>([:])
    private let timeout: Duration
    private let onTimeout: @Sendable (UInt16) -> Void

    init(timeout: Duration = .seconds(30), onTimeout: @escaping @Sendable (UInt16) -> Void) {
        self.timeout = timeout
        self.onTimeout = onTimeout
    }

    /// An indication was queued for the connection.
    func queued(on connection: UInt16) {
        watches.withLock { watches in
            var watch = watches[connection] ?? Watch()
            if watch.outstanding == 0 { watch.lastProgress = .now }
            watch.outstanding += 1
            if watch.timer == nil { watch.timer = arm(connection, after: timeout) }
            watches[connection] = watch
        }
    }

    func confirmed(on connection: UInt16) {
        watches.withLock { watches in
            guard var watch = watches[connection] else { return }
            watch.outstanding = max(0, watch.outstanding - 1)
            watch.lastProgress = .now
            if watch.outstanding == 0 {
                watch.timer?.cancel()
                watch.timer = nil
            }
            watches[connection] = watch
        }
    }

    func connectionClosed(_ connection: UInt16) {
        let watch = watches.withLock { $0.removeValue(forKey: connection) }
        watch?.timer?.cancel()
    }

    private func arm(_ connection: UInt16, after delay: Duration) -> Task<Void, Never> {
        Task { [weak self] in
            guard (try? await Task.sleep(for: delay)) != nil else { return }
            self?.expired(connection)
        }
    }

    private func expired(_ connection: UInt16) {
        let timedOut: Bool = watches.withLock { watches in
            guard var watch = watches[connection], watch.outstanding > 0 else {
                watches[connection]?.timer = nil
                return false
            }
            let waited = ContinuousClock.now - watch.lastProgress
            if waited >= timeout {
                watches.removeValue(forKey: connection)
                return true
            }
            // Progress happened since the timer was armed: wait for the remainder.
            watch.timer = arm(connection, after: timeout - waited)
            watches[connection] = watch
            return false
        }
        if timedOut { onTimeout(connection) }
    }
}
