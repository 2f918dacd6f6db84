import Foundation

/// A temporary /sys/class/thermal tree.
public final class SimulatedThermalTree: Sendable {
    public let root: String

    public init() throws {
        root = NSTemporaryDirectory() + "thermal-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    }

    public var zones: ThermalZones { ThermalZones(root: root) }

    public func setZone(_ index: Int, type: String, milliCelsius: String) throws {
        let directory = root + "/thermal_zone\(index)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try (type + "\n").write(toFile: directory + "/type", atomically: true, encoding: .utf8)
        try (milliCelsius + "\n").write(toFile: directory + "/temp", atomically: true, encoding: .utf8)
    }

    deinit { try? FileManager.default.removeItem(atPath: root) }
}
