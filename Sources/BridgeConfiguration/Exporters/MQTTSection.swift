#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension ConfigurationLoader {
    static let mqttKeys = ["broker", "client-id", "username", "password-file", "ca-file", "client-certificate", "client-key",
                           "topic-prefix", "discovery-prefix", "qos", "keepalive", "sensors", "health-sensors"]

    /// `mqtt:`; nil after a problem. `sensors` is nil while the sensor list itself is invalid.
    static func mqttSettings(_ value: YAMLValue, sensors: [SensorConfiguration]?, problems: inout ProblemList) -> MQTTSettings? {
        guard let map = value.map(path: "mqtt", known: mqttKeys, problems: &problems) else { return nil }
        let before = problems.problems.count
        guard let item = map["broker"] else {
            problems.add("mqtt", value, "needs broker: the broker's URL, like mqtt://192.168.1.10 or mqtts://broker.lan:8883")
            return nil
        }
        let broker = item.text(path: map.path("broker"), expected: "a URL like mqtt://192.168.1.10", problems: &problems).flatMap { text in
            switch MQTTBrokerURL.parse(text) {
            case let .success(broker): return broker
            case let .failure(problem):
                problems.add(map.path("broker"), item, problem.description)
                return nil
            }
        }
        let exported = exportedSensors(map, sensors: sensors, problems: &problems)
        // Every key is checked even after a problem, so that one run reports them all.
        var settings = MQTTSettings(broker: broker ?? MQTTSettings.Broker(tls: true, host: "", port: 8883),
                                    sensors: exported ?? ExportedSensors(names: []))

        if let item = map["client-id"], let text = item.text(path: map.path("client-id"), expected: "a client id", problems: &problems) {
            if text.isEmpty || text.utf8.count > 65_535 || text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
                problems.add(map.path("client-id"), item, "a client id is 1…65535 bytes of printable text (brokers may want 1…23 letters and digits)")
            } else {
                settings.clientID = text
            }
        }
        if let item = map["username"], let text = item.text(path: map.path("username"), expected: "a user name", problems: &problems) {
            if text.isEmpty || text.utf8.count > 65_535 || text.contains("\0") {
                problems.add(map.path("username"), item, "a user name is 1…65535 bytes")
            } else {
                settings.username = text
            }
        }
        if let path = absolutePath(map, "password-file", example: "/etc/blesensor/mqtt-password", problems: &problems) {
            if settings.username == nil {
                problems.add(map.path("password-file"), map["password-file"]!, "a password needs a username: add username")
            } else {
                switch SecretFile.password(at: path) {
                case let .success(password):
                    settings.password = password
                    settings.passwordFile = path
                case let .failure(problem):
                    problems.add(map.path("password-file"), map["password-file"]!, problem.message)
                }
            }
        }
        for (key, example) in [("ca-file", "/etc/ssl/certs/my-ca.pem"), ("client-certificate", "/etc/blesensor/mqtt-client.pem"),
                               ("client-key", "/etc/blesensor/mqtt-client.key")] {
            guard let path = absolutePath(map, key, example: example, problems: &problems) else { continue }
            let item = map[key]!
            if let broker, !broker.tls {
                problems.add(map.path(key), item, "\(key) only applies to TLS: write the broker as mqtts://\(broker.host)")
            } else if access(path, F_OK) != 0 {
                problems.add(map.path(key), item, "\(path) does not exist")
            } else {
                switch key {
                case "ca-file": settings.caFile = path
                case "client-certificate": settings.clientCertificate = path
                default: settings.clientKey = path
                }
            }
        }
        if (map["client-certificate"] == nil) != (map["client-key"] == nil) {
            let key = map["client-certificate"] == nil ? "client-key" : "client-certificate"
            problems.add(map.path(key), map[key]!, "give both client-certificate and client-key, or neither")
        }
        if let prefix = topic(map, "topic-prefix", example: "blesensor/kitchen", problems: &problems) { settings.topicPrefix = prefix }
        if let prefix = topic(map, "discovery-prefix", example: "homeassistant", problems: &problems) { settings.discoveryPrefix = prefix }
        if let item = map["qos"], let qos = item.integer(path: map.path("qos"), in: MQTTSettings.qosRange, expected: "a QoS 0, 1 or 2", problems: &problems) {
            settings.qos = qos
        }
        _ = durationSetting(map, "keepalive", in: MQTTSettings.keepaliveRange, rangeText: "5s…1h", into: &settings.keepalive, problems: &problems)
        return problems.problems.count == before && sensors != nil ? settings : nil
    }

    private static func absolutePath(_ map: YAMLMap, _ key: String, example: String, problems: inout ProblemList) -> String? {
        guard let item = map[key], let path = item.text(path: map.path(key), expected: "the absolute path of a file", problems: &problems) else { return nil }
        guard path.hasPrefix("/") else {
            problems.add(map.path(key), item, "'\(abbreviated(path))' is not an absolute path; write e.g. \(example)")
            return nil
        }
        return path
    }

    /// A topic to publish under: levels separated by `/`, none empty, no wildcards, not a `$` system topic.
    private static func topic(_ map: YAMLMap, _ key: String, example: String, problems: inout ProblemList) -> String? {
        guard let item = map[key], let text = item.text(path: map.path(key), expected: "a topic like \(example)", problems: &problems) else { return nil }
        let levels = text.split(separator: "/", omittingEmptySubsequences: false)
        let problem: String? =
            if text.isEmpty || levels.contains(where: \.isEmpty) { "'\(abbreviated(text))' has an empty topic level: write e.g. \(example), with no leading, trailing or double /" }
            else if text.contains("+") || text.contains("#") { "'\(abbreviated(text))' contains a wildcard (+ or #), which a topic to publish to cannot have" }
            else if text.hasPrefix("$") { "'\(abbreviated(text))' starts with $, which brokers keep for their own topics" }
            else if text.contains("\0") || text.utf8.count > 1024 { "'\(abbreviated(text))' is not a usable topic (at most 1024 bytes, no NUL)" }
            else { nil }
        if let problem {
            problems.add(map.path(key), item, problem)
            return nil
        }
        return text
    }
}

/// `mqtt://host[:port]` and `mqtts://host[:port]`, as `broker:` takes them.
public enum MQTTBrokerURL {
    public enum ParseError: Error, Equatable, Sendable, CustomStringConvertible {
        case scheme(String)
        case credentials
        case path(String)
        case host(String)
        case port(String)

        public var description: String {
            switch self {
            case let .scheme(text): return "'\(abbreviated(text))' is not a broker URL: write mqtt://HOST[:PORT] or mqtts://HOST[:PORT] (TLS)"
            case .credentials: return "put the user name under username and the password in a file named by password-file, not in the URL"
            case let .path(text): return "'\(abbreviated(text))' has a path; a broker URL is only mqtt[s]://HOST[:PORT]"
            case let .host(text): return "'\(abbreviated(text))' is not a host name or address"
            case let .port(text): return "'\(abbreviated(text))' is not a port 1…65535"
            }
        }
    }

    public static func parse(_ text: String) -> Result<MQTTSettings.Broker, ParseError> {
        let tls: Bool
        let rest: Substring
        if text.lowercased().hasPrefix("mqtt://") {
            tls = false
            rest = text.dropFirst(7)
        } else if text.lowercased().hasPrefix("mqtts://") {
            tls = true
            rest = text.dropFirst(8)
        } else {
            return .failure(.scheme(text))
        }
        guard !rest.contains("@") else { return .failure(.credentials) }
        var authority = rest
        if authority.hasSuffix("/") { authority = authority.dropLast() }
        guard !authority.contains("/"), !authority.contains("?"), !authority.contains("#") else { return .failure(.path(text)) }
        var host: Substring
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return .failure(.host(String(authority))) }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return .failure(.host(String(authority))) }
                portText = after.dropFirst()
            }
            guard !host.isEmpty, host.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else { return .failure(.host(String(host))) }
        } else {
            let parts = authority.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count <= 2 else { return .failure(.host(String(authority))) }
            host = parts[0]
            portText = parts.count == 2 ? parts[1] : nil
            let allowed = host.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == ".") }
            guard !host.isEmpty, host.utf8.count <= 253, allowed, !host.hasPrefix("-"), !host.hasPrefix(".") else {
                return .failure(.host(String(host)))
            }
        }
        var port = tls ? 8883 : 1883
        if let portText {
            guard portText.count <= 5, portText.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int(portText), (1...65_535).contains(value) else {
                return .failure(.port(String(portText)))
            }
            port = value
        }
        return .success(MQTTSettings.Broker(tls: tls, host: String(host), port: port))
    }
}
