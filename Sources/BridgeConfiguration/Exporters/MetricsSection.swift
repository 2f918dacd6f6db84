#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// `metrics:`: the Prometheus endpoint. Off when the section is absent; loopback by default, so a
/// board's readings are not on the network until the user says where to listen.
public struct MetricsSettings: Sendable, Equatable {
    /// Prometheus's default-port registry (a wiki page, out of reach from where this was written)
    /// is said to have filled 9100–9999; this port is not registered there and may clash with some
    /// exporter, so `listen:` changes it. Clear of node_exporter (9100) and the common exporters.
    public static let defaultPort: UInt16 = 9879

    /// An IPv4 or IPv6 literal: `127.0.0.1`, `0.0.0.0`, `::1`, `::`.
    public var host: String
    public var port: UInt16
    public var sensors: ExportedSensors

    public init(host: String = "127.0.0.1", port: UInt16 = MetricsSettings.defaultPort, sensors: ExportedSensors) {
        self.host = host
        self.port = port
        self.sensors = sensors
    }

    /// Hosts that keep the endpoint on this machine.
    public static let loopbackHosts: Set<String> = ["127.0.0.1", "::1"]

    /// `127.0.0.1:9879`, `[::1]:9879`.
    public var listenDescription: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// `HOST:PORT` or `[IPv6]:PORT` into a literal host and a port; nil when it is not one.
    public static func parseListen(_ text: String) -> (host: String, port: UInt16)? {
        let host: Substring
        let portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else { return nil }
            host = text[text.index(after: text.startIndex)..<close]
            portText = text[text.index(close, offsetBy: 2)...]
            guard isAddress(String(host), family: AF_INET6) else { return nil }
        } else {
            guard let colon = text.lastIndex(of: ":") else { return nil }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
            guard isAddress(String(host), family: AF_INET) else { return nil }
        }
        guard !portText.isEmpty, portText.allSatisfy(\.isASCII), portText.allSatisfy(\.isNumber), portText.count <= 5,
              let port = UInt16(portText), port > 0 else { return nil }
        return (String(host), port)
    }

    static func isAddress(_ text: String, family: Int32) -> Bool {
        guard !text.isEmpty, text.utf8.count < 64, !text.contains("\0") else { return false }
        var buffer = [UInt8](repeating: 0, count: 16)
        return inet_pton(family, text, &buffer) == 1
    }
}

extension ConfigurationLoader {
    static let metricsKeys = ["listen", "sensors", "health-sensors"]

    static func metricsSettings(_ value: YAMLValue?, sensors: [SensorConfiguration]?, problems: inout ProblemList) -> MetricsSettings?? {
        guard let value else { return .some(nil) }
        guard let map = value.map(path: "metrics", known: metricsKeys, problems: &problems) else { return nil }
        guard let selection = exportedSensors(map, sensors: sensors, problems: &problems) else { return nil }
        var settings = MetricsSettings(sensors: selection)
        if let item = map["listen"] {
            let path = map.path("listen")
            guard let text = item.text(path: path, expected: "an address and port like 127.0.0.1:\(MetricsSettings.defaultPort)", problems: &problems) else { return nil }
            guard let (host, port) = MetricsSettings.parseListen(text) else {
                problems.add(path, item, "'\(abbreviated(text))' is not an address and port: write 127.0.0.1:\(MetricsSettings.defaultPort), "
                             + "0.0.0.0:\(MetricsSettings.defaultPort) for every interface, or [::1]:\(MetricsSettings.defaultPort)")
                return nil
            }
            settings.host = host
            settings.port = port
        }
        return .some(settings)
    }
}
