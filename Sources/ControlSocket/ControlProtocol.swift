/// The control socket's wire protocol: one JSON object per line in each direction (JSON lines),
/// every message tagged with the protocol's major `version`.
///
/// ```
/// → {"version":1,"command":"status"}
/// ← {"ok":true,"status":{...},"version":1}
/// → {"version":1,"command":"watch-sensors"}
/// ← {"ok":true,"version":1}
/// ← {"sensor":{...},"version":1}              (one line per sensor update, until the client disconnects)
/// ← {"error":"unknown command 'x'; known: status, watch-sensors","ok":false,"version":1}
/// ```
public enum ControlProtocol {
    /// The major version this build speaks. A peer with a higher version gets an error naming this one;
    /// additive changes (new optional fields, new commands) keep the version.
    public static let version = 1
    /// Where blesensord listens unless configured otherwise (systemd `RuntimeDirectory=blesensor`).
    public static let defaultSocketPath = "/run/blesensor/control.sock"
    /// The longest request line the server reads, without its newline.
    public static let maxRequestBytes = 4096
}

/// What a client can ask for.
public enum ControlCommand: String, Sendable, CaseIterable {
    /// One `ControlReply` carrying a `StatusSnapshot`.
    case status
    /// An acknowledging `ControlReply`, then a `SensorUpdateMessage` per sensor update.
    case watchSensors = "watch-sensors"

    /// `status, watch-sensors`, for error messages.
    static var knownList: String { allCases.map(\.rawValue).joined(separator: ", ") }
}

/// A request line. `command` stays a string so an unknown one can be named in the error reply.
public struct ControlRequest: Codable, Sendable, Equatable {
    public var version: Int
    public var command: String

    public init(version: Int = ControlProtocol.version, command: String) {
        self.version = version
        self.command = command
    }

    public init(_ command: ControlCommand) {
        self.init(command: command.rawValue)
    }
}

/// The reply to a request: `ok` with the command's result, or not `ok` with an `error` a user can act on.
public struct ControlReply: Codable, Sendable, Equatable {
    public var version: Int
    public var ok: Bool
    /// Present in the reply to `status`.
    public var status: StatusSnapshot?
    /// Present when `ok` is false.
    public var error: String?

    public init(version: Int = ControlProtocol.version, ok: Bool, status: StatusSnapshot? = nil, error: String? = nil) {
        self.version = version
        self.ok = ok
        self.status = status
        self.error = error
    }

    public static func failure(_ message: String) -> ControlReply {
        ControlReply(ok: false, error: message)
    }
}

/// One line of the `watch-sensors` stream.
public struct SensorUpdateMessage: Codable, Sendable, Equatable {
    public var version: Int
    public var sensor: SensorStatus

    public init(version: Int = ControlProtocol.version, sensor: SensorStatus) {
        self.version = version
        self.sensor = sensor
    }
}
