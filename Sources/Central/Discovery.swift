import BLECore
import GAP

/// A device heard while scanning (CoreBluetooth's `didDiscover peripheral, advertisementData, rssi`):
/// GAP's report, with the advertising data merged with the device's latest scan response.
public typealias Discovery = ScanReport

extension ScanReport {
    /// Whether it advertises (in its advertising data or scan response) one of `services`, as a
    /// UUID or with service data.
    public func advertisesAny(of services: [BluetoothUUID]) -> Bool {
        services.contains { advertisement.serviceUUIDs.contains($0) || advertisement.serviceData[$0] != nil }
    }
}
