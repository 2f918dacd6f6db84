import BLECore
import BTHome
import BridgeConfiguration
import Logging
import MetricsExporter
import MQTTExporter
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
            exporters.append(MetricsExporter(settings: settings, version: SensorBridge.softwareVersion, sources: sources,
                                             withheldCharacteristics: settings.sensors.withheldCharacteristics(of: configuration.sensors),
                                             logger: logger))
        }
        if let settings = configuration.mqtt {
            // The address (kept in the state directory) names the device in Home Assistant, so its
            // entities keep their unique ids across restarts and renames.
            let device = MQTTDeviceIdentity(name: configuration.deviceName,
                                            identifier: MQTTDeviceIdentity.identifier(address: runtime.address, deviceName: configuration.deviceName),
                                            model: configuration.deviceInformation.model,
                                            manufacturer: configuration.deviceInformation.manufacturer)
            exporters.append(MQTTExporter(settings: settings, device: device, deviceName: configuration.deviceName,
                                          sensors: configuration.sensors, logger: logger))
        }
        if let settings = configuration.broadcast {
            let uuid = BluetoothUUID(BTHomePacket.serviceUUID)
            let sink = BroadcastSink(
                address: { await manager.gap.identityAddress.map { Array($0.address.littleEndianBytes.reversed()) } },
                advertise: { data in try await manager.setBroadcastServiceData(data, for: uuid) })
            exporters.append(BTHomeBroadcaster(settings: settings, counterPath: BridgeConfiguration.bthomeCounter(in: configuration.paths.stateDirectory),
                                               sink: sink, logger: logger))
        }
        return exporters
    }
}
