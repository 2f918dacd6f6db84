import Logging
import Synchronization

/// A swift-log handler that keeps messages so tests can observe what a transport reported.
struct CapturingLogHandler: LogHandler {
    final class Store: Sendable {
        private struct State {
            var entries: [(Logger.Level, String)] = []
            var waiters: [(level: Logger.Level, count: Int, continuation: CheckedContinuation<Void, Never>)] = []
        }

        private let state = Mutex(State())

        func messages(at level: Logger.Level) -> [String] {
            state.withLock { $0.entries.filter { $0.0 == level }.map(\.1) }
        }

        func append(_ level: Logger.Level, _ message: String) {
            let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
                state.entries.append((level, message))
                let entries = state.entries
                func met(_ waiter: (level: Logger.Level, count: Int, continuation: CheckedContinuation<Void, Never>)) -> Bool {
                    entries.count { $0.0 == waiter.level } >= waiter.count
                }
                let done = state.waiters.filter(met).map(\.continuation)
                state.waiters.removeAll(where: met)
                return done
            }
            for continuation in ready { continuation.resume() }
        }

        /// Suspends until `count` messages at `level` were logged (the caller bounds the wait).
        func waitForMessages(at level: Logger.Level, count: Int) async {
            await withCheckedContinuation { continuation in
                let alreadyMet = state.withLock { state -> Bool in
                    if state.entries.count(where: { $0.0 == level }) >= count { return true }
                    state.waiters.append((level, count, continuation))
                    return false
                }
                if alreadyMet { continuation.resume() }
            }
        }
    }

    let store: Store
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace
    var metadataProvider: Logger.MetadataProvider?

    func log(event: LogEvent) {
        store.append(event.level, event.message.description)
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    static func logger() -> (Logger, Store) {
        let store = Store()
        return (Logger(label: "test") { _ in CapturingLogHandler(store: store) }, store)
    }
}
