import Foundation
import Sensors

/// What the kernel and the chips hand back: DS18B20's w1_slave text, an AHT20 measurement frame,
/// and IIO/hwmon attribute files (written into a scratch sysfs tree). Any bytes give a reading or
/// a `SensorError`; a reading is always a physical value.
enum SensorValueFuzzing {
    /// One scratch tree per process: an IIO device and a hwmon device named "fuzz".
    static let root: String = {
        let root = scratchPath(of: getpid())
        // Removed when the process ends (a fuzzing run, or the test run replaying the corpus).
        atexit { try? FileManager.default.removeItem(atPath: SensorValueFuzzing.scratchPath(of: getpid())) }
        for directory in ["/bus/iio/devices/iio:device0", "/class/hwmon/hwmon0"] {
            try? FileManager.default.createDirectory(atPath: root + directory, withIntermediateDirectories: true)
            try? Data("fuzz\n".utf8).write(to: URL(fileURLWithPath: root + directory + "/name"))
        }
        return root
    }()

    static func scratchPath(of process: pid_t) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("blesensor-fuzz-sysfs-\(process)").path
    }

    static let iioFiles = ["in_temp_raw", "in_temp_offset", "in_temp_scale", "in_humidityrelative_input", "in_pressure_input"]
    static let hwmonFiles = ["temp1_input", "temp2_input", "humidity1_input"]

    static func run(_ bytes: [UInt8]) {
        guard let selector = bytes.first else { return }
        let rest = Array(bytes.dropFirst())
        switch selector % 4 {
        case 0:
            if let reading = try? DS18B20.parse(w1Slave: String(decoding: rest, as: UTF8.self)) {
                FuzzInvariant.check((-273.15...1000).contains(reading.celsius), "DS18B20 read \(reading.celsius) °C")
            }
        case 1:
            if let reading = try? AHT20.decode(rest) {
                FuzzInvariant.check((0...100).contains(reading.relativeHumidity), "AHT20 read \(reading.relativeHumidity) %RH")
            }
        case 2:
            kernel(.iio, directory: "/bus/iio/devices/iio:device0", files: iioFiles, rest)
        default:
            kernel(.hwmon, directory: "/class/hwmon/hwmon0", files: hwmonFiles, rest)
        }
    }

    /// The input, split at 0xFF, is the files' contents in turn; a file without a part is absent.
    private static func kernel(_ kind: KernelSensor.Kind, directory: String, files: [String], _ bytes: [UInt8]) {
        let parts = bytes.split(separator: 0xFF, omittingEmptySubsequences: false)
        for (index, file) in files.enumerated() {
            let path = root + directory + "/" + file
            if index < parts.count {
                try? Data(parts[index]).write(to: URL(fileURLWithPath: path))
            } else {
                try? FileManager.default.removeItem(atPath: path)
            }
        }
        guard let reading = try? KernelSensor(kind: kind, device: "fuzz", root: root).read() else { return }
        if let celsius = reading.celsius { FuzzInvariant.check((-273.15...1000).contains(celsius), "\(kind) read \(celsius) °C") }
        if let humidity = reading.relativeHumidity { FuzzInvariant.check((0...100).contains(humidity), "\(kind) read \(humidity) %RH") }
        if let pascals = reading.pascals { FuzzInvariant.check(pascals.isFinite, "\(kind) read \(pascals) Pa") }
    }
}
