import BridgeConfiguration
import Sensors

/// Where each message goes: states and problems under the topic prefix, Home Assistant's configs
/// under the discovery prefix.
public struct MQTTTopics: Sendable, Equatable {
    /// `blesensor/<device>` unless `topic-prefix` says otherwise.
    public let prefix: String
    public let discoveryPrefix: String
    /// One topic level naming this bridge for Home Assistant (its node id and device identifier).
    public let node: String

    public init(prefix: String, discoveryPrefix: String, node: String) {
        self.prefix = prefix
        self.discoveryPrefix = discoveryPrefix
        self.node = node
    }

    /// `online` (retained) while connected; the broker's will writes `offline` when we vanish.
    public var availability: String { "\(prefix)/availability" }
    /// Home Assistant says `online` here when it (re)starts: every config is published again.
    public var homeAssistantStatus: String { "\(discoveryPrefix)/status" }

    public func state(sensor: String, quantity: Quantity) -> String {
        "\(prefix)/\(MQTTSettings.topicLevel(sensor))/\(quantity.rawValue)"
    }

    /// `ON` while the sensor is failed, else `OFF`.
    public func problem(sensor: String) -> String { "\(prefix)/\(MQTTSettings.topicLevel(sensor))/problem" }

    /// `<discovery>/<component>/<node>/<object>/config`.
    public func config(component: String, object: String) -> String {
        "\(discoveryPrefix)/\(component)/\(node)/\(object)/config"
    }
}
