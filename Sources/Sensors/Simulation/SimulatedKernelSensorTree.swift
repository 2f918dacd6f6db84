import Foundation

/// A temporary sysfs tree with IIO devices (bus/iio/devices/iio:deviceN) and hwmon devices
/// (class/hwmon/hwmonN), each with its `name` and channel files, for `KernelSensor`.
public final class SimulatedKernelSensorTree: Sendable {
    public let root: String

    public init() throws {
        root = NSTemporaryDirectory() + "sysfs-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    }

    /// Creates (or replaces) a device directory with `name` and the given attribute files; returns its path.
    @discardableResult
    public func addDevice(_ kind: KernelSensor.Kind, index: Int, name: String, attributes: [String: String]) throws -> String {
        let directory = root + kind.directory + "/" + kind.entryPrefix + String(index)
        try? FileManager.default.removeItem(atPath: directory)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try (name + "\n").write(toFile: directory + "/name", atomically: true, encoding: .utf8)
        for (file, value) in attributes {
            try (value + "\n").write(toFile: directory + "/" + file, atomically: true, encoding: .utf8)
        }
        return directory
    }

    /// What the dht11 IIO driver exposes: processed temperature (m°C) and humidity (m%RH).
    @discardableResult
    public func addDHT(index: Int = 0, celsius: Double, relativeHumidity: Double) throws -> String {
        try addDevice(.iio, index: index, name: "dht11", attributes: [
            "in_temp_input": String(Int((celsius * 1000).rounded())),
            "in_humidityrelative_input": String(Int((relativeHumidity * 1000).rounded())),
        ])
    }

    /// What w1_therm registers as hwmon: temp1_input in m°C.
    @discardableResult
    public func addHwmonThermometer(index: Int = 0, name: String = "w1_slave_temp", celsius: Double) throws -> String {
        try addDevice(.hwmon, index: index, name: name, attributes: ["temp1_input": String(Int((celsius * 1000).rounded()))])
    }

    public func remove(_ kind: KernelSensor.Kind, index: Int) throws {
        try FileManager.default.removeItem(atPath: root + kind.directory + "/" + kind.entryPrefix + String(index))
    }

    public func sensor(_ kind: KernelSensor.Kind, device: String) -> KernelSensor {
        KernelSensor(kind: kind, device: device, root: root)
    }

    deinit { try? FileManager.default.removeItem(atPath: root) }
}
