import BLECore
import GATT

/// The database every test uses, with its handles written out (checked by `LayoutTests`):
///
///     0x01 1800 GAP          0x02/0x03 Device Name   0x04/0x05 Appearance   0x06/0x07 PPCP
///     0x08 1801 GATT         0x09/0x0A Service Changed, 0x0B CCCD
///                            0x0C/0x0D Client Supported Features   0x0E/0x0F Database Hash
///     0x10 180D Heart Rate   0x11/0x12 2A37 notify, 0x13 CCCD   0x14/0x15 2A38 static 01
///                            0x16/0x17 2A39 write
///     0x18 custom (128-bit)  0x19/0x1A setpoint (read, write, write without response, dynamic)
///                            0x1B User Description "Setpoint"   0x1C 2906 dynamic descriptor
///                            0x1D/0x1E 400-byte static value
///                            0x1F/0x20 secure: read needs encryption, write needs authentication
///                            0x21/0x22 indicate, 0x23 CCCD
enum TestDatabase {
    static let customService = BluetoothUUID("12345678-0000-4000-8000-0000000000A0")!
    static let setpointUUID = BluetoothUUID("12345678-0000-4000-8000-0000000000A1")!
    static let longUUID = BluetoothUUID("12345678-0000-4000-8000-0000000000A2")!
    static let secureUUID = BluetoothUUID("12345678-0000-4000-8000-0000000000A3")!
    static let indicateUUID = BluetoothUUID("12345678-0000-4000-8000-0000000000A4")!
    static let validRange = BluetoothUUID(0x2906)

    static let measurement: CharacteristicID = "hr.measurement"
    static let location: CharacteristicID = "hr.location"
    static let control: CharacteristicID = "hr.control"
    static let setpoint: CharacteristicID = "custom.setpoint"
    static let long: CharacteristicID = "custom.long"
    static let secure: CharacteristicID = "custom.secure"
    static let alert: CharacteristicID = "custom.alert"

    /// 0x00, 0x01, … 0xFF, 0x00, … (400 octets).
    static let longValue: [UInt8] = (0..<400).map { UInt8(truncatingIfNeeded: $0) }

    static func make() throws -> AttributeDatabase {
        let heartRate = GATTService(uuid: BluetoothUUID(0x180D), characteristics: [
            GATTCharacteristic(id: measurement, uuid: BluetoothUUID(0x2A37), properties: .notify, permissions: []),
            GATTCharacteristic(id: location, uuid: BluetoothUUID(0x2A38), properties: .read,
                               permissions: .readable, value: .static([0x01])),
            GATTCharacteristic(id: control, uuid: BluetoothUUID(0x2A39), properties: .write, permissions: .writeable),
        ])
        let custom = GATTService(uuid: customService, characteristics: [
            GATTCharacteristic(id: setpoint, uuid: setpointUUID, properties: [.read, .write, .writeWithoutResponse],
                               permissions: [.readable, .writeable], descriptors: [
                                   .userDescription("Setpoint"),
                                   GATTDescriptor(uuid: validRange, permissions: [.readable, .writeable], value: .dynamic),
                               ]),
            GATTCharacteristic(id: long, uuid: longUUID, properties: .read, permissions: .readable,
                               value: .static(longValue)),
            GATTCharacteristic(id: secure, uuid: secureUUID, properties: [.read, .write],
                               permissions: [.readable, .readEncryptionRequired, .writeable, .writeAuthenticationRequired]),
            GATTCharacteristic(id: alert, uuid: indicateUUID, properties: .indicate, permissions: []),
        ])
        return try AttributeDatabase.build(services: [heartRate, custom],
                                           builtInServices: BuiltInServices(deviceName: "blesensor", appearance: 0x0341))
    }
}
