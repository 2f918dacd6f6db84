/// One exporter's state as `status` and `doctor` show it: MQTT, the BTHome broadcast, the
/// Prometheus endpoint. Field names are JSON keys of the control protocol.
public struct ExporterStatus: Codable, Sendable, Equatable {
    public enum State: String, Codable, Sendable, Equatable {
        /// Working: connected to the broker, broadcasting, listening.
        case running
        /// Not yet working, or working again soon: connecting, reconnecting after a back-off.
        case connecting
        /// Not working, and will not without a change (a refused login, a port in use); `lastError` says why.
        case failed
    }

    /// `mqtt`, `bthome`, `metrics`.
    public var name: String
    public var state: State
    /// Where it goes: `mqtts://broker:8883`, `http://127.0.0.1:9870/metrics`, `service data 0xFCD2`.
    public var endpoint: String
    /// Messages or packets handed on (MQTT publishes, advertisement updates, scrapes).
    public var sent: Int64
    /// Readings given up (an MQTT value replaced while the broker was away, a refused update).
    public var dropped: Int64
    /// The newest error, kept after recovery so `doctor` can say what happened; nil when none.
    public var lastError: String?
    /// What else a person should know (the sensors it exports, health opt-ins, the key in use).
    public var detail: String?

    public init(name: String, state: State, endpoint: String, sent: Int64 = 0, dropped: Int64 = 0,
                lastError: String? = nil, detail: String? = nil) {
        self.name = name
        self.state = state
        self.endpoint = endpoint
        self.sent = sent
        self.dropped = dropped
        self.lastError = lastError
        self.detail = detail
    }

    private enum CodingKeys: String, CodingKey { case name, state, endpoint, sent, dropped, lastError, detail }

    /// `lastError` and `detail` are null rather than missing, so every documented key is there.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(state, forKey: .state)
        try container.encode(endpoint, forKey: .endpoint)
        try container.encode(sent, forKey: .sent)
        try container.encode(dropped, forKey: .dropped)
        try container.encode(lastError, forKey: .lastError)
        try container.encode(detail, forKey: .detail)
    }
}
