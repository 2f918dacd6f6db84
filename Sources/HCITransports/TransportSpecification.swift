import HCI

/// Which controller link to use, as given by `--transport`.
public enum TransportSpecification: Sendable, Equatable, CustomStringConvertible {
    /// H4 over TCP, we connect as client: `tcp:127.0.0.1:1234`, `tcp:[::1]:1234`.
    case tcp(host: String, port: UInt16)
    /// Linux HCI user channel: `hci:0`.
    case hciUserChannel(index: UInt16)
    /// H4 over a serial port: `uart:/dev/ttyAMA0?baud=115200&flow=on`.
    case uart(path: String, baudRate: UInt32, flowControl: Bool)
    /// The in-process emulated controller (module VirtualController).
    case virtual

    public static let defaultBaudRate: UInt32 = 115_200
    public static let defaultFlowControl = true

    /// The canonical spelling; `TransportSpecification(parsing: spec.description) == spec`.
    public var description: String {
        switch self {
        case let .tcp(host, port):
            // IPv6 literals are bracketed so the port separator stays unambiguous.
            return host.contains(":") ? "tcp:[\(host)]:\(port)" : "tcp:\(host):\(port)"
        case let .hciUserChannel(index):
            return "hci:\(index)"
        case let .uart(path, baudRate, flowControl):
            return "uart:\(path)?baud=\(baudRate)&flow=\(flowControl ? "on" : "off")"
        case .virtual:
            return "virtual"
        }
    }
}
