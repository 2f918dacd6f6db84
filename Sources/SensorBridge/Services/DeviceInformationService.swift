import BLECore
import BridgeConfiguration
import GATT
import SIGProfiles

/// Device Information 0x180A: fixed strings and the PnP ID, answered by the server from its cache.
enum DeviceInformationService {
    /// The version this build reports as firmware and software revision.
    static let version = "0.8.0"

    static func make(_ settings: DeviceInformationSettings, firmware: String = version) -> GATTService {
        var strings: [(UInt16, String)] = [
            (0x2A29, settings.manufacturer),
            (0x2A24, settings.model),
        ]
        if let serial = settings.serialNumber { strings.append((0x2A25, serial)) }
        strings += [(0x2A26, firmware), (0x2A28, firmware)]
        var characteristics = strings.map { uuid, text in
            GATTCharacteristic(uuid: BluetoothUUID(uuid), properties: [.read], permissions: [.readable],
                               value: .static(Array(prefix(text, bytes: DeviceInformationString.maximumLength).utf8)))
        }
        let source: PnPID.VendorIDSource = settings.pnpVendorSource == 1 ? .bluetoothSIG : .usbImplementersForum
        let pnp = PnPID(vendorIDSource: source, vendorID: settings.pnpVendorID, productID: settings.pnpProductID,
                        productVersion: settings.pnpProductVersion)
        characteristics.append(GATTCharacteristic(uuid: BluetoothUUID(0x2A50), properties: [.read], permissions: [.readable],
                                                  value: .static(pnp.encoded)))
        return GATTService(uuid: BluetoothUUID(0x180A), characteristics: characteristics)
    }

    /// The longest prefix of whole characters that fits `bytes` of UTF-8 (never half a character).
    static func prefix(_ text: String, bytes: Int) -> String {
        var result = ""
        var used = 0
        for character in text {
            used += character.utf8.count
            guard used <= bytes else { break }
            result.append(character)
        }
        return result
    }
}
