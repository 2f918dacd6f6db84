import Foundation

/// /sys/class/thermal zones; the root is injectable so tests use a temp tree.
public struct ThermalZones: Sendable {
    public static let defaultRoot = "/sys/class/thermal"
    public let root: String

    public init(root: String = ThermalZones.defaultRoot) {
        self.root = root
    }

    public struct Zone: Sendable, Equatable {
        public var name: String
        public var type: String
    }

    /// thermal_zoneN directories sorted by N, with their `type` (e.g. "cpu-thermal").
    public func zones() -> [Zone] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        return names
            .filter { $0.hasPrefix("thermal_zone") }
            .sorted { (Int($0.dropFirst(12)) ?? .max) < (Int($1.dropFirst(12)) ?? .max) }
            .map { Zone(name: $0, type: readText("\(root)/\($0)/type") ?? "") }
    }

    /// The zone's `temp` file in millidegrees Celsius.
    public func milliCelsius(zone: String) throws(SensorError) -> Int {
        let path = "\(root)/\(zone)/temp"
        guard let text = readText(path) else {
            throw .unavailable(sensor: "cpu-temp", reason: "\(path) is missing or unreadable")
        }
        guard let value = Int(text) else {
            throw .invalidData(sensor: "cpu-temp", reason: "\(path) contains '\(text)', not an integer")
        }
        return value
    }

    private func readText(_ path: String) -> String? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return String(data: data, encoding: .utf8)?.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
