/// `mqtt:`: publish the readings to an MQTT broker with Home Assistant discovery. Off when absent.
public struct MQTTSettings: Sendable, Equatable {
    /// Where the broker listens: `mqtt://host[:port]` (1883) or `mqtts://host[:port]` (8883, TLS).
    public struct Broker: Sendable, Equatable, CustomStringConvertible {
        public var tls: Bool
        /// A name or an IPv4 address, or an IPv6 address without its brackets.
        public var host: String
        public var port: Int

        public init(tls: Bool, host: String, port: Int) {
            self.tls = tls
            self.host = host
            self.port = port
        }

        public var description: String {
            let shown = host.contains(":") ? "[\(host)]" : host
            return "\(tls ? "mqtts" : "mqtt")://\(shown):\(port)"
        }
    }

    public static let qosRange = 0...2
    public static let keepaliveRange = Duration.seconds(5) ... Duration.seconds(3600)
    public static let defaultDiscoveryPrefix = "homeassistant"

    public var broker: Broker
    /// Nil: derived from the device (`blesensor-<address>`), so two bridges never share one.
    public var clientID: String?
    public var username: String?
    /// Read from `password-file` when the configuration is loaded; never written in the YAML.
    public var password: String?
    public var passwordFile: String?
    /// PEM file of the CA that signed the broker's certificate; nil with mqtts: the system's CAs.
    public var caFile: String?
    public var clientCertificate: String?
    public var clientKey: String?
    /// Nil: `blesensor/<device-name as a topic level>`.
    public var topicPrefix: String?
    public var discoveryPrefix: String = Self.defaultDiscoveryPrefix
    public var qos: Int = 1
    public var keepalive: Duration = .seconds(60)
    public var sensors: ExportedSensors

    public init(broker: Broker, sensors: ExportedSensors) {
        self.broker = broker
        self.sensors = sensors
    }
}

extension MQTTSettings {
    /// `text` as one topic level and one part of a Home Assistant object id: lower-case letters,
    /// digits, `_` and `-`, everything else (spaces, `/`, `+`, `#`, non-ASCII) as one `_`; never empty.
    public static func topicLevel(_ text: String) -> String {
        var level = ""
        for scalar in text.lowercased().unicodeScalars {
            let kept = scalar.isASCII && (("a"..."z").contains(scalar) || ("0"..."9").contains(scalar) || scalar == "-" || scalar == "_")
            if kept {
                level.unicodeScalars.append(scalar)
            } else if !level.hasSuffix("_") {
                level += "_"
            }
        }
        while level.hasPrefix("_") { level.removeFirst() }
        while level.hasSuffix("_") { level.removeLast() }
        return level.isEmpty ? "blesensor" : level
    }

    /// The topic every state, the availability and the problems are under: `topic-prefix`, else
    /// `blesensor/<device-name as a topic level>`.
    public func resolvedTopicPrefix(deviceName: String) -> String {
        topicPrefix ?? "blesensor/\(Self.topicLevel(deviceName))"
    }
}
