import Sensors
import Yams

/// A sensor's `options:` and `calibration-offset` given as command-line words (`--heater on`,
/// `--oversampling temperature=2,pressure=16`), checked by the same code as the configuration file,
/// so `blesensor sensor read` and the daemon take the same names, values and driver rules.
public enum CommandLineSettings {
    /// The names of the `options:` keys: `sensor read --option NAME=VALUE` takes each, and most
    /// have a `--NAME` flag of their own.
    public static var optionNames: [String] { SensorSection.optionDrivers.map(\.key) }

    /// Options that always take `key=value,key=value` on the command line (maps in the file); others
    /// are read as a map when the text has a `=` (the sht4x heater, where sht31's is `on`/`off`).
    static let mapOptions: Set<String> = ["oversampling"]

    public struct Settings: Sendable, Equatable {
        public var options: DriverOptions
        public var calibrationOffsets: [Quantity: Double]
        public var unit: TemperatureUnit
    }

    /// `options` pairs option names with their command-line text; `calibrationOffset` is one number
    /// (the driver's first quantity) or `quantity=number,…`; `unit` is the sensor's `unit` key.
    /// Problems carry the option name as path.
    public static func settings(driver: SensorDriver, options: [(name: String, text: String)],
                                calibrationOffset: String?, unit: String? = nil) -> Result<Settings, ConfigurationProblems> {
        var problems = ProblemList()
        var entries: [(Node, Node)] = []
        for (name, text) in options {
            entries.append((Node(name), mapOptions.contains(name) || text.contains("=") ? node(forPairs: text) : Node(text)))
        }
        let parsedOptions = entries.isEmpty ? DriverOptions()
            : SensorSection.options(YAMLValue(node: .mapping(Node.Mapping(entries))), path: "", driver: driver, problems: &problems)
        var offsets: [Quantity: Double] = [:]
        if let calibrationOffset {
            let value = calibrationOffset.contains("=") ? node(forPairs: calibrationOffset) : Node(calibrationOffset)
            offsets = SensorSection.calibration(YAMLValue(node: value), path: "calibration-offset", driver: driver,
                                                problems: &problems) ?? [:]
        }
        let parsedUnit = unit.flatMap { SensorSection.unit(YAMLValue(node: Node($0)), path: "unit", driver: driver, problems: &problems) }
        guard problems.isEmpty, let parsedOptions else {
            return .failure(ConfigurationProblems(fileName: "command line", problems: problems.problems))
        }
        return .success(Settings(options: parsedOptions, calibrationOffsets: offsets, unit: parsedUnit ?? .celsius))
    }

    /// `--device` of iio and hwmon, checked like the file's `device` (a name, or an absolute path
    /// without `..`).
    public static func device(_ text: String, driver: SensorDriver) -> Result<String, ConfigurationProblems> {
        var problems = ProblemList()
        guard let device = SensorSection.kernelDevice(YAMLValue(node: Node(text)), path: "device", driver: driver, problems: &problems) else {
            return .failure(ConfigurationProblems(fileName: "command line", problems: problems.problems))
        }
        return .success(device)
    }

    /// `a=1,b=2` as the map `{a: 1, b: 2}`; a word without `=` becomes a key with an empty value,
    /// which the option's own check then reports.
    private static func node(forPairs text: String) -> Node {
        let pairs = text.split(separator: ",", omittingEmptySubsequences: false).map { item -> (Node, Node) in
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (Node(String(parts[0])), Node(parts.count > 1 ? String(parts[1]) : ""))
        }
        return .mapping(Node.Mapping(pairs))
    }
}
