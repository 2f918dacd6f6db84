import ArgumentParser
import Sensors

/// `blesensor sensor read DRIVER` takes the same driver names as the configuration file.
extension SensorDriver: ExpressibleByArgument {}
