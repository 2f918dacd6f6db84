import BLECore
import Central
import GATTClient

/// Finding attributes by UUID the way the commands take them.
enum AttributeLookup {
    static func uuid(_ text: String) throws(CLIFailure) -> BluetoothUUID {
        guard let uuid = BluetoothUUID(text) else {
            throw CLIFailure("'\(text)' is not a UUID (2A19, or 6E400001-B5A3-F393-E0A9-E50E24DCCA9E)")
        }
        return uuid
    }

    /// The first characteristic with `uuid`, in handle order.
    static func characteristic(_ uuid: BluetoothUUID, on peripheral: RemotePeripheral) async throws(CLIFailure) -> RemoteCharacteristic {
        do {
            for service in try await peripheral.discoverServices() {
                if let found = try await peripheral.discoverCharacteristics([uuid], of: service).first { return found }
            }
        } catch {
            throw CLIFailure("discovering \(CentralOutput.uuid(uuid)) failed: \(error)")
        }
        throw CLIFailure("\(peripheral.address) has no characteristic \(CentralOutput.uuid(uuid))")
    }
}
