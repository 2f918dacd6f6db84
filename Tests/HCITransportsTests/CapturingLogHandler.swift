import Logging
import Synchronization

/// A swift-log handler that keeps messages so tests can observe what a transport reported.
struct CapturingLogHandler: LogHandler {
    final class Store: Sendable {
        let entries = Mutex<[(Logger.Level, String)]>([])

        func messages(at level: Logger.Level) -> [String] {
            entries.withLock { $0.filter { $0.0 == level }.map(\.1) }
        }
    }

    let store: Store
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace
    var metadataProvider: Logger.MetadataProvider?

    func log(event: LogEvent) {
        store.entries.withLock { $0.append((event.level, event.message.description)) }
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
