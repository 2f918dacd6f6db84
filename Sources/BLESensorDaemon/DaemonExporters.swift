import BLECore
import BTHome
import BridgeConfiguration
import Logging
import Peripheral
import SensorBridge

/// The exporters the configuration turns on (each section is off when absent), built once the
/// peripheral and the bridge run, because they read both.
enum DaemonExporters {
    static func make(configuration: BridgeConfiguration, runtime: DaemonRuntime, manager: PeripheralManager,
                     logger: Logger) -> [any SensorExporter] {
        _ = runtime
        var exporters: [any SensorExporter] = []
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
