/// What `blesensor status --json` prints: the daemon's state at one moment. Field names are the
/// JSON keys and part of the control protocol (version `ControlProtocol.version`).
public struct StatusSnapshot: Codable, Sendable, Equatable {
    /// `hci:0`, `tcp:127.0.0.1:9000`, `virtual`, ...
    public var transport: String
    /// Our own address as centrals see it, `C0:11:22:33:44:55 (random static)`.
    public var address: String
    public var advertising: Bool
    public var uptimeSeconds: Double
    public var board: String
    public var deviceName: String
    public var centrals: [CentralStatus]
    public var sensors: [SensorStatus]
    /// Identity addresses of the bonded centrals, `AA:BB:CC:DD:EE:FF (public)`; nil when the daemon
    /// runs without a Security Manager (or predates bonds).
    public var bonds: [String]?
    /// Who may pair now; nil without a Security Manager (or from a daemon that predates pairing).
    public var pairing: PairingStatus?
    /// What the controller cannot do and the daemon does without ("this controller cannot
    /// advertise while connected: …"); nil from a daemon that predates them.
    public var controllerLimitations: [ControllerLimitationStatus]?
    /// What went wrong with the bond store at start and how the daemon carries on ("bonds are kept
    /// in memory only: …", "the corrupt store was moved to …"); nil or empty when nothing did.
    public var bondStoreProblems: [String]?
    /// MQTT, BTHome and Prometheus, those the configuration turns on; nil from a daemon that predates them.
    public var exporters: [ExporterStatus]?

    public init(transport: String, address: String, advertising: Bool, uptimeSeconds: Double, board: String,
                deviceName: String, centrals: [CentralStatus], sensors: [SensorStatus],
                bonds: [String]? = nil, pairing: PairingStatus? = nil, controllerLimitations: [ControllerLimitationStatus]? = nil,
                bondStoreProblems: [String]? = nil, exporters: [ExporterStatus]? = nil) {
        self.transport = transport
        self.address = address
        self.advertising = advertising
        self.uptimeSeconds = uptimeSeconds
        self.board = board
        self.deviceName = deviceName
        self.centrals = centrals
        self.sensors = sensors
        self.bonds = bonds
        self.pairing = pairing
        self.controllerLimitations = controllerLimitations
        self.bondStoreProblems = bondStoreProblems
        self.exporters = exporters
    }

    private enum CodingKeys: String, CodingKey {
        case transport, address, advertising, uptimeSeconds, board, deviceName, centrals, sensors, bonds, pairing
        case controllerLimitations, bondStoreProblems, exporters
    }

    /// `bonds` and `pairing` are null rather than missing without security, so every key is always there.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(transport, forKey: .transport)
        try container.encode(address, forKey: .address)
        try container.encode(advertising, forKey: .advertising)
        try container.encode(uptimeSeconds, forKey: .uptimeSeconds)
        try container.encode(board, forKey: .board)
        try container.encode(deviceName, forKey: .deviceName)
        try container.encode(centrals, forKey: .centrals)
        try container.encode(sensors, forKey: .sensors)
        try container.encode(bonds, forKey: .bonds)
        try container.encode(pairing, forKey: .pairing)
        try container.encode(controllerLimitations, forKey: .controllerLimitations)
        try container.encode(bondStoreProblems, forKey: .bondStoreProblems)
        try container.encode(exporters, forKey: .exporters)
    }
}

/// One thing bring-up found the controller cannot do.
public struct ControllerLimitationStatus: Codable, Sendable, Equatable {
    /// A sentence for the person running the daemon, with the remedy where there is one.
    public var text: String
    /// Someone should act (install firmware); otherwise the daemon copes and this is for information.
    public var needsAction: Bool

    public init(text: String, needsAction: Bool) {
        self.text = text
        self.needsAction = needsAction
    }
}

public struct CentralStatus: Codable, Sendable, Equatable {
    public var address: String
    /// `public`, `random`.
    public var addressType: String
    public var mtu: Int
    /// `none`, `unauthenticated`, `authenticated`, `authenticated-secure-connections`.
    public var security: String
    /// Characteristic UUIDs this central subscribed to, with `notify` or `indicate`: `2A37 notify`.
    public var subscriptions: [String]
    /// Values handed to the controller for this central.
    public var sent: Int64
    /// Queued values replaced or merged by a newer one before they were sent.
    public var coalesced: Int64
    /// Values refused (queue full) or discarded for this central.
    public var dropped: Int64
    /// Values waiting in this central's queue now.
    public var queued: Int
    // Security fields are optional only so a reply from a daemon that predates them still decodes;
    // blesensord always sends them.
    /// The central has a bond with us.
    public var bonded: Bool?
    /// The same level as `security`, under the name the security fields share.
    public var securityLevel: String?
    /// Encryption key size in octets; 0 while the link is not encrypted.
    public var keySize: Int?

    public init(address: String, addressType: String, mtu: Int, security: String, subscriptions: [String],
                sent: Int64, coalesced: Int64, dropped: Int64, queued: Int,
                bonded: Bool? = nil, securityLevel: String? = nil, keySize: Int? = nil) {
        self.address = address
        self.addressType = addressType
        self.mtu = mtu
        self.security = security
        self.subscriptions = subscriptions
        self.sent = sent
        self.coalesced = coalesced
        self.dropped = dropped
        self.queued = queued
        self.bonded = bonded
        self.securityLevel = securityLevel
        self.keySize = keySize
    }
}

public struct SensorStatus: Codable, Sendable, Equatable {
    public enum State: String, Codable, Sendable, Equatable {
        /// Not read yet since the daemon started.
        case starting
        /// The last read succeeded.
        case ok
        /// The sensor answered but has nothing to measure (no finger on a PPG sensor, no pulses).
        case noSignal = "no-signal"
        /// The sensor is conditioning itself (heater pulse, cool-down): the values shown are the last
        /// ambient ones, `ageSeconds` old; `error` says when readings resume.
        case paused
        /// The last reads failed; retrying with back-off. `error` says why.
        case failed
    }

    public var name: String
    public var driver: String
    /// The primary quantity's newest value (temperature for bme280), nil before the first reading
    /// and while the sensor is failed: an old number is never shown as current. A paused sensor keeps
    /// its last ambient value (`ageSeconds` shows how old), which is what its characteristics still hold.
    public var value: Double?
    public var unit: String
    /// Seconds since the newest successful reading; nil before the first.
    public var ageSeconds: Double?
    public var state: State
    public var error: String?
    /// Every quantity of the newest reading (bme280: temperature, humidity, pressure).
    public var readings: [QuantityReading]
    /// Successful and failed reads since start (Int64: counts that only grow must not overflow a
    /// 32-bit Int on armhf).
    public var reads: Int64
    public var failures: Int64

    private enum CodingKeys: String, CodingKey {
        case name, driver, value, unit, ageSeconds, state, error, readings, reads, failures
    }

    /// `value`, `ageSeconds` and `error` are always present, as null when unknown, so a script can
    /// rely on every documented key (synthesized encoding would leave them out).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(driver, forKey: .driver)
        try container.encode(value, forKey: .value)
        try container.encode(unit, forKey: .unit)
        try container.encode(ageSeconds, forKey: .ageSeconds)
        try container.encode(state, forKey: .state)
        try container.encode(error, forKey: .error)
        try container.encode(readings, forKey: .readings)
        try container.encode(reads, forKey: .reads)
        try container.encode(failures, forKey: .failures)
    }

    public init(name: String, driver: String, value: Double?, unit: String, ageSeconds: Double?, state: State,
                error: String?, readings: [QuantityReading], reads: Int64, failures: Int64) {
        self.name = name
        self.driver = driver
        self.value = value
        self.unit = unit
        self.ageSeconds = ageSeconds
        self.state = state
        self.error = error
        self.readings = readings
        self.reads = reads
        self.failures = failures
    }
}

public struct QuantityReading: Codable, Sendable, Equatable {
    /// `temperature`, `humidity`, `pressure`, `heart-rate`, `battery-level`.
    public var quantity: String
    public var value: Double
    public var unit: String
    /// Heart rate only: RR-intervals of this reading in milliseconds.
    public var rrIntervalsMilliseconds: [Double]?
    /// Heart rate only: `detected`, `not-detected` or `unsupported`.
    public var contact: String?

    public init(quantity: String, value: Double, unit: String, rrIntervalsMilliseconds: [Double]? = nil, contact: String? = nil) {
        self.quantity = quantity
        self.value = value
        self.unit = unit
        self.rrIntervalsMilliseconds = rrIntervalsMilliseconds
        self.contact = contact
    }
}

extension QuantityReading {
    /// The value in the unit the sensor measures in: a temperature shown in °F (the sensor's
    /// `unit: fahrenheit`) back in °C, for exporters whose format fixes the unit.
    public var measuredValue: Double { unit == "°F" ? (value - 32) * 5 / 9 : value }
}
