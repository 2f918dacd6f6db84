#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import BLECore
import Foundation

/// A sensor the kernel already drives (a device-tree overlay binding dht11, bme280, w1_therm...),
/// read from sysfs: an IIO device (/sys/bus/iio/devices/iio:deviceN) or a hwmon device
/// (/sys/class/hwmon/hwmonN). The device is chosen by the `name` file, because N changes across
/// boots, or by its directory path. The sysfs root is injectable so tests use a fake tree.
public struct KernelSensor: Sendable {
    public enum Kind: String, Sendable, Equatable {
        case iio, hwmon

        /// Where the devices are listed, below the sysfs root, and the prefix of their entries.
        public var directory: String { self == .iio ? "/bus/iio/devices" : "/class/hwmon" }
        var entryPrefix: String { self == .iio ? "iio:device" : "hwmon" }
    }

    /// What the device reported; a quantity it has no channel for is nil.
    public struct Reading: Sendable, Equatable {
        public var celsius: Double?
        public var relativeHumidity: Double?
        public var pascals: Double?

        public init(celsius: Double? = nil, relativeHumidity: Double? = nil, pascals: Double? = nil) {
            self.celsius = celsius
            self.relativeHumidity = relativeHumidity
            self.pascals = pascals
        }

        var quantities: [Quantity] {
            [(Quantity.temperature, celsius), (.humidity, relativeHumidity), (.pressure, pascals)].compactMap { $1 == nil ? nil : $0 }
        }
    }

    public static let defaultRoot = "/sys"
    /// Sysfs attributes are a line of text; anything longer is not one.
    static let attributeLimit = 128

    public let kind: Kind
    /// A device name (`dht11`, `bme280`, `w1_slave_temp`) or the absolute path of its directory.
    public let device: String
    public let root: String

    public init(kind: Kind, device: String, root: String = KernelSensor.defaultRoot) {
        self.kind = kind
        self.device = device
        self.root = root
    }

    var sensorName: String { "\(kind.rawValue) \(device)" }

    /// Device directories with their names, in index order.
    public func devices() -> [(directory: String, name: String)] {
        let base = root + kind.directory
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: base)) ?? []
        return entries
            .filter { $0.hasPrefix(kind.entryPrefix) }
            .sorted { (Int($0.dropFirst(kind.entryPrefix.count)) ?? .max) < (Int($1.dropFirst(kind.entryPrefix.count)) ?? .max) }
            .map { entry in
                let directory = base + "/" + entry
                let name = (try? attribute(directory + "/name")).flatMap { $0 } ?? ""
                return (directory, name)
            }
    }

    /// The device's directory: the path as given, or the one device whose `name` matches.
    public func resolve() throws(SensorError) -> String {
        if device.hasPrefix("/") {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: device, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw .unavailable(sensor: sensorName, reason: "\(device) does not exist: check the path (ls \(root + kind.directory))")
            }
            return device
        }
        let all = devices()
        let matches = all.filter { $0.name == device }
        guard let match = matches.first else {
            let names = all.map { $0.name.isEmpty ? "(unnamed)" : $0.name }
            let found = names.isEmpty ? "no \(kind.rawValue) devices at all under \(root + kind.directory)"
                : "found: " + names.joined(separator: ", ")
            let hint = kind == .iio ? " (is the device-tree overlay loaded, e.g. dtoverlay=dht11,gpiopin=4?)" : ""
            throw .unavailable(sensor: sensorName, reason: "no \(kind.rawValue) device is named '\(device)'\(hint); \(found)")
        }
        guard matches.count == 1 else {
            let directories = matches.map { String($0.directory.split(separator: "/").last ?? "") }.joined(separator: ", ")
            throw .unavailable(sensor: sensorName, reason: "\(matches.count) devices are named '\(device)' (\(directories)): give the directory path instead")
        }
        return match.directory
    }

    /// Reads every channel the device has; `required` quantities must be among them.
    public func read(required: [Quantity] = []) throws(SensorError) -> Reading {
        let directory = try resolve()
        var reading = Reading()
        switch kind {
        case .iio:
            reading.celsius = try channel(directory, "in_temp").map { $0 / 1000 }
            reading.relativeHumidity = try channel(directory, "in_humidityrelative").map { $0 / 1000 }
            // IIO pressure is in kPa.
            reading.pascals = try channel(directory, "in_pressure").map { $0 * 1000 }
        case .hwmon:
            reading.celsius = try firstIndexed(directory, "temp").map { $0 / 1000 }
            reading.relativeHumidity = try firstIndexed(directory, "humidity").map { $0 / 1000 }
        }
        let present = reading.quantities
        guard !present.isEmpty else {
            throw .unavailable(sensor: sensorName, reason: "\(directory) has no temperature, humidity or pressure channel")
        }
        if let missing = required.first(where: { !present.contains($0) }) {
            throw .unavailable(sensor: sensorName, reason: "the device has no \(missing.rawValue) channel; it reports \(present.map(\.rawValue).joined(separator: ", "))")
        }
        if let celsius = reading.celsius, !(-273.15...1000).contains(celsius) {
            throw .invalidData(sensor: sensorName, reason: "\(celsius) °C is not a temperature")
        }
        if let humidity = reading.relativeHumidity {
            // A few percent past the ends is sensor tolerance and is cropped (as the Sensirion and
            // Bosch datasheets say); far outside means a wrong scale or a garbled value, not 100 %.
            guard (-5...105).contains(humidity) else {
                throw .invalidData(sensor: sensorName, reason: "\(humidity) %RH is not a relative humidity (check the channel's _scale and _offset)")
            }
            reading.relativeHumidity = min(100, max(0, humidity))
        }
        return reading
    }

    /// IIO: `PREFIX_input` in the channel's processed unit, else (`_raw` + `_offset`) × `_scale`
    /// (Documentation/ABI/testing/sysfs-bus-iio).
    private func channel(_ directory: String, _ prefix: String) throws(SensorError) -> Double? {
        if let value = try number(directory + "/" + prefix + "_input") { return value }
        guard let raw = try number(directory + "/" + prefix + "_raw") else { return nil }
        let offset = try number(directory + "/" + prefix + "_offset") ?? 0
        let scale = try number(directory + "/" + prefix + "_scale") ?? 1
        return (raw + offset) * scale
    }

    /// hwmon: the lowest-numbered `PREFIXN_input` (Documentation/hwmon/sysfs-interface).
    private func firstIndexed(_ directory: String, _ prefix: String) throws(SensorError) -> Double? {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        let indices = entries.compactMap { entry -> Int? in
            guard entry.hasPrefix(prefix), entry.hasSuffix("_input") else { return nil }
            return Int(entry.dropFirst(prefix.count).dropLast("_input".count))
        }
        guard let index = indices.min() else { return nil }
        return try number(directory + "/\(prefix)\(index)_input")
    }

    private func number(_ path: String) throws(SensorError) -> Double? {
        guard let text = try attribute(path) else { return nil }
        guard let value = Double(text), value.isFinite else {
            throw .invalidData(sensor: sensorName, reason: "\(path) holds '\(text.printableExcerpt())', not a number")
        }
        return value
    }

    /// The attribute's text, nil when the file does not exist. A read the driver failed (the dht11
    /// driver returns EIO or ETIMEDOUT when the sensor's reply was garbled or missing) is reported
    /// as a transient failure of this read.
    private func attribute(_ path: String) throws(SensorError) -> String? {
        switch BoundedFile.read(path, limit: Self.attributeLimit) {
        case let .success(bytes):
            return String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        case let .failure(failure) where failure.isMissing:
            return nil
        case let .failure(failure):
            throw Self.readError(failure, path: path, sensor: sensorName)
        }
    }

    static func readError(_ failure: BoundedFile.Failure, path: String, sensor: String) -> SensorError {
        guard [EIO, ETIMEDOUT, EAGAIN, EBUSY].contains(failure.code) else {
            return .unavailable(sensor: sensor, reason: "reading \(path) failed: \(failure)")
        }
        return .unavailable(sensor: sensor, reason: "the kernel driver could not read the sensor this time (\(failure)); "
                            + "DHT-type sensors miss a reply now and then, the next poll tries again")
    }
}
