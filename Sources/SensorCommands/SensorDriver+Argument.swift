import ArgumentParser
import Sensors

/// `blesensor sensor read DRIVER` takes the same driver names as the configuration file.
extension SensorDriver: ExpressibleByArgument {
    public init?(argument: String) { self.init(rawValue: argument) }

    public static var allValueStrings: [String] { allCases.map(\.rawValue) }
}
