/// The control socket's wire protocol: one JSON object per line in each direction (JSON lines),
/// every message tagged with the protocol's major `version`.
///
/// ```
/// → {"version":1,"command":"status"}
/// ← {"ok":true,"status":{...},"version":1}
/// → {"version":1,"command":"watch-sensors"}
/// ← {"ok":true,"version":1}
/// ← {"sensor":{...},"version":1}              (one line per sensor update, until the client disconnects)
/// → {"version":1,"command":"bonds"}
/// ← {"bonds":[{...}],"ok":true,"version":1}
/// → {"version":1,"command":"remove-bond","address":"AA:BB:CC:DD:EE:FF","addressType":"public"}
/// ← {"ok":true,"removedBond":{...},"version":1}
/// → {"version":1,"command":"open-pairing-window","seconds":60}
/// ← {"ok":true,"pairing":{...},"version":1}
/// → {"version":1,"command":"pairing"}
/// ← {"ok":true,"pairing":{...,"passkey":"123456"},"version":1}
/// → {"version":1,"command":"watch-pairing"}
/// ← {"ok":true,"version":1}
/// ← {"pairingEvent":{"kind":"passkey","peer":"...","passkey":"123456"},"version":1}   (until the client disconnects)
///
/// `remove-bond`, `open-pairing-window`, `pairing` and `watch-pairing` are for administrators (`Administrators`,
/// decided from the kernel's `SO_PEERCRED`); `status` never carries the passkey.
/// ← {"error":"unknown command 'x'; known: status, watch-sensors, ...","ok":false,"version":1}
/// ```
public enum ControlProtocol {
    /// The major version this build speaks. A peer with a higher version gets an error naming this one;
    /// additive changes (new optional fields, new commands) keep the version.
    public static let version = 1
    /// Where blesensord listens unless configured otherwise (systemd `RuntimeDirectory=blesensor`).
    public static let defaultSocketPath = "/run/blesensor/control.sock"
    /// The longest request line the server reads, without its newline.
    public static let maxRequestBytes = 4096
    /// How long `open-pairing-window` may keep pairing open: long enough to walk to a phone, short
    /// enough that a forgotten window closes within the hour.
    public static let pairingWindowSeconds = 1...3600
}

/// What a client can ask for.
public enum ControlCommand: String, Sendable, CaseIterable {
    /// One `ControlReply` carrying a `StatusSnapshot`.
    case status
    /// An acknowledging `ControlReply`, then a `SensorUpdateMessage` per sensor update.
    case watchSensors = "watch-sensors"
    /// One `ControlReply` carrying `bonds`.
    case bonds
    /// Forgets the bond named by `address` (and `addressType`); the reply carries `removedBond`.
    case removeBond = "remove-bond"
    /// Opens the pairing window for `seconds`; the reply carries `pairing`, passkey included.
    case openPairingWindow = "open-pairing-window"
    /// The pairing state with the passkey (the fixed one, or the random one shown last); the reply carries `pairing`.
    case pairing
    /// An acknowledging `ControlReply`, then a `PairingEventMessage` per pairing event (passkeys
    /// included, so for administrators), as `blesensor pair --follow` shows them.
    case watchPairing = "watch-pairing"

    /// `status, watch-sensors, ...`, for error messages.
    static var knownList: String { allCases.map(\.rawValue).joined(separator: ", ") }
}

/// A request line. `command` stays a string so an unknown one can be named in the error reply.
/// Fields a command does not use are absent from the line (nil), so a `status` request reads as it always did.
public struct ControlRequest: Codable, Sendable, Equatable {
    public var version: Int
    public var command: String
    /// `remove-bond`: `AA:BB:CC:DD:EE:FF`, optionally followed by ` (public)` or ` (random)`.
    public var address: String?
    /// `remove-bond`: `public` or `random`, when the address alone could name two bonds.
    public var addressType: String?
    /// `open-pairing-window`: how long, within `ControlProtocol.pairingWindowSeconds`.
    public var seconds: Int?

    public init(version: Int = ControlProtocol.version, command: String, address: String? = nil,
                addressType: String? = nil, seconds: Int? = nil) {
        self.version = version
        self.command = command
        self.address = address
        self.addressType = addressType
        self.seconds = seconds
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
    /// Present in the reply to `bonds`.
    public var bonds: [BondStatus]?
    /// Present in the reply to `remove-bond`: the bond that was forgotten.
    public var removedBond: BondStatus?
    /// Present in the reply to `open-pairing-window`: the pairing state after it.
    public var pairing: PairingStatus?
    /// Present when `ok` is false.
    public var error: String?

    public init(version: Int = ControlProtocol.version, ok: Bool, status: StatusSnapshot? = nil, bonds: [BondStatus]? = nil,
                removedBond: BondStatus? = nil, pairing: PairingStatus? = nil, error: String? = nil) {
        self.version = version
        self.ok = ok
        self.status = status
        self.bonds = bonds
        self.removedBond = removedBond
        self.pairing = pairing
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

/// Something that happened to pairing, for `watch-pairing` (`blesensor pair --follow`).
public struct PairingEvent: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable, Equatable {
        /// A central asks for the passkey: `passkey` is what its user types.
        case passkey
        /// Numeric comparison: `number` is what the central's screen must show too.
        case comparison
        /// Pairing finished; `detail` says bonded or not and how strong.
        case paired
        /// Pairing failed or was refused; `detail` says why.
        case failed
        case windowOpened = "window-opened"
        case windowClosed = "window-closed"
    }

    public var kind: Kind
    /// The central, as the link shows it (`AA:BB:CC:DD:EE:FF (random)`).
    public var peer: String?
    public var passkey: String?
    public var number: String?
    public var detail: String?

    public init(kind: Kind, peer: String? = nil, passkey: String? = nil, number: String? = nil, detail: String? = nil) {
        self.kind = kind
        self.peer = peer
        self.passkey = passkey
        self.number = number
        self.detail = detail
    }
}

/// One line of the `watch-pairing` stream.
public struct PairingEventMessage: Codable, Sendable, Equatable {
    public var version: Int
    public var pairingEvent: PairingEvent

    public init(version: Int = ControlProtocol.version, pairingEvent: PairingEvent) {
        self.version = version
        self.pairingEvent = pairingEvent
    }
}
