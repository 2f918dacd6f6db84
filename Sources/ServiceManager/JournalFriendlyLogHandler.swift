import Logging

/// A swift-log handler writing one line per record: with the syslog priority prefix and no
/// timestamp when stderr goes to the journal, with an ISO 8601 UTC timestamp otherwise.
///
/// Thread-safe: a value type whose formatting is pure; the sink receives whole lines and the
/// default one writes each with a single locked write(2).
public struct JournalFriendlyLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?

    public let label: String
    public let format: LogLineFormat
    private let clock: @Sendable () -> WallClockTime
    private let sink: @Sendable (String) -> Void

    /// - Parameters:
    ///   - clock: read only for `.timestamped` lines.
    ///   - sink: receives each line without its newline.
    public init(label: String, format: LogLineFormat, metadataProvider: Logger.MetadataProvider? = nil,
                clock: @escaping @Sendable () -> WallClockTime = WallClockTime.now,
                sink: @escaping @Sendable (String) -> Void = StandardErrorSink.write) {
        self.label = label
        self.format = format
        self.metadataProvider = metadataProvider
        self.clock = clock
        self.sink = sink
    }

    /// For `LoggingSystem.bootstrap`: stderr, in the format `LogLineFormat.detect` picks.
    public static func standardError(label: String, environment: [String: String]) -> JournalFriendlyLogHandler {
        JournalFriendlyLogHandler(label: label, format: .detect(environment: environment))
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        // Precedence as in swift-log's StreamLogHandler: handler, then provider, then call site.
        var merged = metadata
        if let provided = metadataProvider?.get(), !provided.isEmpty {
            merged.merge(provided) { _, new in new }
        }
        if let callMetadata = event.metadata, !callMetadata.isEmpty {
            merged.merge(callMetadata) { _, new in new }
        }
        if let error = event.error {
            merged["error"] = .string(String(describing: error))
        }
        sink(LogLineFormatter.line(format: format, level: event.level, label: label,
                                   message: event.message.description, metadata: merged, time: clock()))
    }
}
