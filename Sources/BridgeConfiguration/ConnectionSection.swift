import BLECore

/// `connection:`: the parameters the daemon asks each central for after it connects.
public struct ConnectionSettings: Sendable, Equatable {
    /// nil: the centrals' own choice is left alone (`request-parameters: false`).
    public var preferred: PreferredConnectionParameters?
    /// How long after the connection the request goes out.
    public var requestAfter: Duration
    /// A central that has neither encrypted nor subscribed this long after connecting is dropped
    /// when every slot is taken or the configuration requires encryption: one silent connection
    /// must not lock everyone out. Zero: never.
    public var silentTimeout: Duration = .seconds(60)
    /// The last connection slot only for bonded centrals (with `advertising: max-centrals` 2 or
    /// more, once a bond exists; any central while a pairing window is open): strangers filling the
    /// others do not keep the owner's phone out.
    public var lastSlotForBonded = false

    public static let standard = ConnectionSettings(preferred: .standard, requestAfter: .seconds(5))

    public init(preferred: PreferredConnectionParameters?, requestAfter: Duration, silentTimeout: Duration = .seconds(60)) {
        self.preferred = preferred
        self.requestAfter = requestAfter
        self.silentTimeout = silentTimeout
    }
}

extension ConfigurationLoader {
    static func connectionSettings(_ value: YAMLValue?, problems: inout ProblemList) -> ConnectionSettings? {
        var settings = ConnectionSettings.standard
        guard let value else { return settings }
        let keys = ["request-parameters", "interval-min", "interval-max", "latency", "supervision-timeout", "request-after", "silent-timeout",
                    "last-slot-for-bonded"]
        guard let map = value.map(path: "connection", known: keys, problems: &problems) else { return nil }
        var valid = true
        var preferred = PreferredConnectionParameters.standard
        func duration(_ key: String, into target: inout Duration) {
            guard let item = map[key] else { return }
            if let parsed = item.duration(path: map.path(key), problems: &problems) { target = parsed } else { valid = false }
        }
        duration("interval-min", into: &preferred.intervalMin)
        duration("interval-max", into: &preferred.intervalMax)
        duration("supervision-timeout", into: &preferred.supervisionTimeout)
        if let item = map["latency"] {
            if let latency = item.integer(path: map.path("latency"), in: 0...499, expected: "a number of connection events 0…499", problems: &problems) {
                preferred.latency = latency
            } else {
                valid = false
            }
        }
        valid = durationSetting(map, "request-after", in: Duration.zero...Duration.seconds(60), rangeText: "0s…60s",
                                into: &settings.requestAfter, problems: &problems) && valid
        valid = durationSetting(map, "silent-timeout", in: Duration.zero...Duration.seconds(600), rangeText: "0s…10m",
                                into: &settings.silentTimeout, problems: &problems) && valid
        if let item = map["last-slot-for-bonded"] {
            if let parsed = item.boolean(path: map.path("last-slot-for-bonded"), problems: &problems) { settings.lastSlotForBonded = parsed } else { valid = false }
        }
        var request = true
        if let item = map["request-parameters"] {
            if let parsed = item.boolean(path: map.path("request-parameters"), problems: &problems) { request = parsed } else { valid = false }
        }
        guard valid else { return nil }
        // Parameters a central must reject, or that iOS refuses, would only be asked in vain.
        let broken = preferred.specViolations.map { "the Core spec says \($0)" }
            + preferred.appleRuleViolations.map { "iOS refuses it: \($0) (Apple's accessory rules)" }
        if request, !broken.isEmpty {
            for reason in broken { problems.add("connection", value, "these parameters cannot be asked for: \(reason)") }
            return nil
        }
        settings.preferred = request ? preferred : nil
        return settings
    }
}
