/// One MQTT message as the exporter keeps it before handing it to libmosquitto.
public struct MQTTMessage: Sendable, Equatable {
    public var topic: String
    public var payload: String
    public var retain: Bool

    public init(topic: String, payload: String, retain: Bool) {
        self.topic = topic
        self.payload = payload
        self.retain = retain
    }
}

/// The newest value per topic, so that nothing queues while the broker is away or slow: a value
/// not yet sent when a newer one for its topic arrives is replaced and counted as dropped. Its size
/// is bounded by the number of topics, whatever the poll rate and however long the broker is gone.
public struct LatestValues: Sendable, Equatable {
    /// Waiting to be published.
    public private(set) var pending: [String: MQTTMessage] = [:]
    /// The newest message of every topic that has a current value, to publish again after a
    /// reconnection or when Home Assistant restarts.
    public private(set) var current: [String: MQTTMessage] = [:]
    public private(set) var dropped: Int64 = 0

    public init() {}

    public mutating func put(_ message: MQTTMessage) {
        if pending.updateValue(message, forKey: message.topic) != nil { dropped += 1 }
        current[message.topic] = message
    }

    /// The topic has no current value any more (its sensor failed): nothing old is sent for it.
    public mutating func remove(topic: String) {
        pending[topic] = nil
        current[topic] = nil
    }

    /// The topic's value is out of date (its sensor paused or lost its signal): it is not sent
    /// again after a reconnection; one already pending still goes out, it was current when read.
    public mutating func forget(topic: String) {
        current[topic] = nil
    }

    /// Everything pending, in topic order; the table keeps the current values.
    public mutating func takePending() -> [MQTTMessage] {
        defer { pending.removeAll(keepingCapacity: true) }
        return pending.keys.sorted().compactMap { pending[$0] }
    }

    /// Every current value becomes pending again (after a reconnection), without counting a drop.
    public mutating func resendCurrent() {
        pending.merge(current) { newer, _ in newer }
    }

    /// Values that will not be sent after all (the broker is not taking them fast enough).
    public mutating func countDropped(_ count: Int) { dropped += Int64(count) }
}
