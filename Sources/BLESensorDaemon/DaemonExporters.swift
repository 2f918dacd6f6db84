import BridgeConfiguration
import Logging
import MetricsExporter
import Peripheral
import SensorBridge

/// The exporters the configuration turns on (each section is off when absent), built once the
/// peripheral and the bridge run, because they read both.
enum DaemonExporters {
    static func make(configuration: BridgeConfiguration, runtime: DaemonRuntime, manager: PeripheralManager,
                     logger: Logger) -> [any SensorExporter] {
        var exporters: [any SensorExporter] = []
        if let settings = configuration.metrics {
            let sources = MetricsExporter.Sources(
                snapshot: { runtime.status() },
                notificationsSent: { manager.notificationsSentByCharacteristic().reduce(into: [:]) { $0[$1.key.description] = $1.value } })
            exporters.append(MetricsExporter(settings: settings, version: SensorBridge.softwareVersion, sources: sources, logger: logger))
        }
        return exporters
    }
}
