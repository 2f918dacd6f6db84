import Sensors

/// `broadcast:`: the readings in the advertisements themselves (BTHome v2 service data), for
/// receivers that never connect (Home Assistant's Bluetooth integration and its proxies).
public struct BroadcastSettings: Sendable, Equatable {
    public enum Format: String, Sendable, Equatable, CaseIterable {
        case bthome
    }

    /// The quantities BTHome has objects for; heart rate and SpO2 have none and stay on GATT.
    public static let broadcastQuantities: [Quantity] = [.temperature, .humidity, .pressure, .batteryLevel]

    public var format: Format
    public var sensors: ExportedSensors
    /// Which quantities of those sensors go out (default: all of `broadcastQuantities`).
    public var objects: [Quantity]
    /// The 16-octet AES-CCM key: the packets are encrypted when set. Read from `bindkey-file`.
    public var bindkey: [UInt8]?
    public var bindkeyFile: String?
    /// The sensors opted in under `health-sensors:` (body temperature).
    public var healthSensors: [String]

    public init(format: Format = .bthome, sensors: ExportedSensors, objects: [Quantity] = broadcastQuantities,
                bindkey: [UInt8]? = nil, bindkeyFile: String? = nil, healthSensors: [String] = []) {
        self.healthSensors = healthSensors
        self.format = format
        self.sensors = sensors
        self.objects = objects
        self.bindkey = bindkey
        self.bindkeyFile = bindkeyFile
    }
}

extension BridgeConfiguration {
    /// The BTHome encryption counter, kept so that it only ever increases.
    public static func bthomeCounter(in stateDirectory: String) -> String { stateDirectory + "/bthome-counter" }
}

extension ConfigurationLoader {
    static let broadcastKeys = ["format", "sensors", "health-sensors", "objects", "bindkey-file", "bindkey"]

    /// `broadcast: bthome` or a map; nil when absent (off) or after a problem.
    static func broadcastSettings(_ value: YAMLValue?, sensors: [SensorConfiguration]?, problems: inout ProblemList) -> BroadcastSettings? {
        guard let value, !value.isNull else { return nil }
        let formats = BroadcastSettings.Format.allCases.map(\.rawValue)
        if value.scalarText != nil {
            guard let format = value.choice(path: "broadcast", among: formats, problems: &problems).flatMap(BroadcastSettings.Format.init),
                  let sensors else { return nil }
            return BroadcastSettings(format: format, sensors: defaultBroadcastSensors(sensors))
        }
        guard let map = value.map(path: "broadcast", known: broadcastKeys, problems: &problems) else { return nil }
        let before = problems.problems.count
        var format = BroadcastSettings.Format.bthome
        if let item = map["format"], let chosen = item.choice(path: map.path("format"), among: formats, problems: &problems) {
            format = BroadcastSettings.Format(rawValue: chosen) ?? .bthome
        }
        let objects = broadcastObjects(map, problems: &problems)
        var selection = exportedSensors(map, sensors: sensors, problems: &problems)
        if let sensors, let chosen = selection {
            checkBroadcastable(map, sensors: sensors, problems: &problems)
            // The default selection: the environment sensors and the battery, and the health sensors listed.
            if map["sensors"] == nil {
                let defaults = defaultBroadcastSensors(sensors).names
                let health = (map["health-sensors"]?.sequence ?? []).compactMap(\.scalarText)
                selection = ExportedSensors(names: chosen.names.filter { defaults.contains($0) || health.contains($0) })
            }
        }
        var bindkey: [UInt8]? = nil
        var bindkeyFile: String? = nil
        if let item = map["bindkey"] {
            problems.add(map.path("bindkey"), item, "the bindkey does not belong in this file (others may read it): write the 32 hex digits "
                         + "into a file, chown root:blesensor and chmod 0640 it, and name it with bindkey-file, e.g. /etc/blesensor/bthome.key")
        }
        if let item = map["bindkey-file"], !item.isNull,
           let path = item.text(path: map.path("bindkey-file"), expected: "the absolute path of a file holding 32 hex digits", problems: &problems) {
            if !path.hasPrefix("/") {
                problems.add(map.path("bindkey-file"), item, "'\(abbreviated(path))' is not an absolute path; write e.g. /etc/blesensor/bthome.key")
            } else {
                switch SecretFile.bindkey(at: path) {
                case let .success(key):
                    bindkey = key
                    bindkeyFile = path
                case let .failure(problem):
                    problems.add(map.path("bindkey-file"), item, problem.message)
                }
            }
        }
        guard problems.problems.count == before, let selection, let objects else { return nil }
        let health = (map["health-sensors"]?.sequence ?? []).compactMap(\.scalarText)
        return BroadcastSettings(format: format, sensors: selection, objects: objects, bindkey: bindkey, bindkeyFile: bindkeyFile,
                                 healthSensors: health)
    }

    private static func carriesBroadcastQuantity(_ sensor: SensorConfiguration) -> Bool {
        sensor.driver.quantities.contains { BroadcastSettings.broadcastQuantities.contains($0) }
    }

    /// The characteristics that make a sensor one of "the configured environment sensors and battery".
    private static let broadcastCharacteristics: [PublishedCharacteristic] = [.environmentalTemperature, .humidity, .pressure, .batteryLevel]

    /// Every sensor that is not health data and publishes an environmental value or the battery level
    /// (not, say, a CPU temperature that only shows in status).
    private static func defaultBroadcastSensors(_ sensors: [SensorConfiguration]) -> ExportedSensors {
        ExportedSensors(names: ExportedSensors.defaultSelection(sensors).names.filter { name in
            sensors.first { $0.name == name }?.publish.contains(where: broadcastCharacteristics.contains) ?? false
        })
    }

    /// A sensor listed by name that measures only heart rate or SpO2 cannot be broadcast.
    private static func checkBroadcastable(_ map: YAMLMap, sensors: [SensorConfiguration], problems: inout ProblemList) {
        for key in ["sensors", "health-sensors"] {
            for (index, entry) in (map[key]?.sequence ?? []).enumerated() {
                guard let name = entry.scalarText, let sensor = sensors.first(where: { $0.name == name }),
                      !carriesBroadcastQuantity(sensor) else { continue }
                problems.add("\(map.path(key))[\(index)]", entry, "'\(name)' measures only heart rate or SpO2, which BTHome has no object for: "
                             + "they stay on GATT (the Heart Rate and Pulse Oximeter services); remove it here")
            }
        }
    }

    private static func broadcastObjects(_ map: YAMLMap, problems: inout ProblemList) -> [Quantity]? {
        guard let item = map["objects"] else { return BroadcastSettings.broadcastQuantities }
        let path = map.path("objects")
        guard let entries = item.list(path: path, of: "quantities (temperature, humidity, pressure, battery-level)", problems: &problems) else { return nil }
        var objects: [Quantity] = []
        var valid = true
        let names = BroadcastSettings.broadcastQuantities.map(\.rawValue)
        for (index, entry) in entries.enumerated() {
            let entryPath = "\(path)[\(index)]"
            guard let name = entry.text(path: entryPath, expected: "a quantity like temperature", problems: &problems) else {
                valid = false
                continue
            }
            if name == Quantity.heartRate.rawValue || name == Quantity.oxygenSaturation.rawValue {
                problems.add(entryPath, entry, "BTHome has no \(name == "spo2" ? "SpO2" : "heart-rate") object: heart rate and SpO2 stay on GATT "
                             + "(the Heart Rate and Pulse Oximeter services); remove it here")
                valid = false
            } else if let quantity = Quantity(rawValue: name), names.contains(name) {
                if objects.contains(quantity) {
                    problems.add(entryPath, entry, "'\(name)' is listed twice")
                    valid = false
                } else {
                    objects.append(quantity)
                }
            } else {
                let hint = suggestion(for: name, among: names).map { "; did you mean '\($0)'?" } ?? " (use \(names.joined(separator: ", ")))"
                problems.add(entryPath, entry, "'\(abbreviated(name))' is not a BTHome object blesensor sends\(hint)")
                valid = false
            }
        }
        if valid, objects.isEmpty {
            problems.add(path, item, "lists no object: name at least one of \(names.joined(separator: ", ")), or remove broadcast")
            valid = false
        }
        return valid ? objects : nil
    }
}
