/// How one check came out. `warn` is for what may well be fine (a sensor with no finger on it,
/// bluetoothd running beside us); `info` says what was found without judging it.
public enum CheckStatus: String, Sendable, Equatable, Codable, CaseIterable {
    case ok, info, warn, fail

    /// The word that starts the line: FAIL in capitals so it stands out in a column of oks.
    public var label: String { self == .fail ? "FAIL" : rawValue }
}

/// What a check's subject is: the checks are grouped by it in `--json` output.
public enum CheckArea: String, Sendable, Equatable, Codable {
    case config, bluetooth, i2c, gpio, oneWire = "1-wire", kernelSensors = "kernel-sensors", accounts, daemon, sensors
    /// MQTT, the BTHome broadcast, the Prometheus endpoint: what the daemon's status says of each.
    case exporters
}

/// One line of `blesensor doctor`: `FAIL  /dev/i2c-1 missing`, with the fix on the next line and,
/// for a configuration with problems, each problem below it.
public struct DoctorCheck: Sendable, Equatable, Codable {
    public var area: CheckArea
    public var status: CheckStatus
    /// What was checked: `/dev/i2c-1`, `config`, `sensor room`.
    public var subject: String
    /// What was found.
    public var detail: String
    /// What to do about it, for `fail` and `warn`; a command where there is one.
    public var fix: String?
    /// Further lines (the configuration's problems with their paths and lines).
    public var notes: [String]

    public init(_ area: CheckArea, _ status: CheckStatus, _ subject: String, _ detail: String,
                fix: String? = nil, notes: [String] = []) {
        self.area = area
        self.status = status
        self.subject = subject
        self.detail = detail
        self.fix = fix
        self.notes = notes
    }
}
