import Sensors

extension SensorConfiguration {
    /// Heart rate, SpO2 and body temperature (a sensor feeding the Health Thermometer) are health
    /// data: no exporter sends them off the device unless the user lists the sensor under
    /// `health-sensors:` of that exporter.
    public var carriesHealthData: Bool {
        driver.quantities.contains(.heartRate) || driver.quantities.contains(.oxygenSaturation)
            || publish.contains(.temperatureMeasurement) || publish.contains(.intermediateTemperature)
    }
}

/// Which sensors one exporter (MQTT, BTHome, Prometheus) sends off the device: the names under
/// `sensors:` (every sensor that is not health data when the key is absent) plus the health sensors
/// the user opted in by name under `health-sensors:`.
public struct ExportedSensors: Sendable, Equatable {
    public var names: [String]

    public init(names: [String]) { self.names = names }

    public func contains(_ sensor: String) -> Bool { names.contains(sensor) }

    /// The characteristics (`2A37`) that only health sensors left out publish: even a count of
    /// their notifications tells when someone wears the sensor, so it stays on the device too.
    public func withheldCharacteristics(of sensors: [SensorConfiguration]) -> Set<String> {
        let withheld = sensors.filter { $0.carriesHealthData && !contains($0.name) }.flatMap(\.publish)
        let exported = sensors.filter { contains($0.name) }.flatMap(\.publish)
        return Set(withheld.filter { !exported.contains($0) }.map(\.characteristicUUID.description))
    }

    /// Every sensor that is not health data, in configuration order.
    public static func defaultSelection(_ sensors: [SensorConfiguration]) -> ExportedSensors {
        ExportedSensors(names: sensors.filter { !$0.carriesHealthData }.map(\.name))
    }
}

extension ConfigurationLoader {
    /// Reads `sensors:` and `health-sensors:` of an exporter's section `map`. Nil after a problem.
    /// `sensors` is nil while the sensor list itself is invalid: names cannot be checked then.
    static func exportedSensors(_ map: YAMLMap, sensors: [SensorConfiguration]?, problems: inout ProblemList) -> ExportedSensors? {
        guard let sensors else { return nil }
        let known = sensors.map(\.name)
        var valid = true
        func names(_ key: String) -> [(String, YAMLValue)]? {
            guard let item = map[key] else { return nil }
            let path = map.path(key)
            guard let items = item.list(path: path, of: "sensor names", problems: &problems) else {
                valid = false
                return nil
            }
            var result: [(String, YAMLValue)] = []
            for (index, entry) in items.enumerated() {
                let entryPath = "\(path)[\(index)]"
                guard let name = entry.text(path: entryPath, expected: "a sensor name", problems: &problems) else {
                    valid = false
                    continue
                }
                guard known.contains(name) else {
                    let hint = suggestion(for: name, among: known).map { "; did you mean '\($0)'?" } ?? "; sensors: \(known.joined(separator: ", "))"
                    problems.add(entryPath, entry, "there is no sensor '\(abbreviated(name))'\(hint)")
                    valid = false
                    continue
                }
                if result.contains(where: { $0.0 == name }) {
                    problems.add(entryPath, entry, "'\(name)' is listed twice")
                    valid = false
                    continue
                }
                result.append((name, entry))
            }
            return result
        }
        let listed = names("sensors")
        let health = names("health-sensors") ?? []
        let byName = Dictionary(uniqueKeysWithValues: sensors.map { ($0.name, $0) })
        for (name, entry) in listed ?? [] where byName[name]?.carriesHealthData == true && !health.contains(where: { $0.0 == name }) {
            problems.add(map.path("sensors"), entry, "'\(name)' carries health data (heart rate, SpO2 or body temperature); "
                         + "to send it off the device, list it under health-sensors instead")
            valid = false
        }
        for (name, entry) in health where byName[name]?.carriesHealthData == false {
            problems.add(map.path("health-sensors"), entry, "'\(name)' carries no health data; list it under sensors")
            valid = false
        }
        guard valid else { return nil }
        var selected = listed.map { $0.map(\.0) } ?? ExportedSensors.defaultSelection(sensors).names
        for (name, _) in health where !selected.contains(name) { selected.append(name) }
        // Configuration order, whatever order the lists use.
        return ExportedSensors(names: known.filter(selected.contains))
    }
}
