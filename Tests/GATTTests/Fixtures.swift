import BLECore
@testable import GATT

/// Sample services shared by the tests. The layout of `sampleDatabase` is written out by hand in
/// Tests/GATTFixtures/database_hash.py, which computes its Database Hash independently.
enum Fixtures {
    static let customService = BluetoothUUID("6E400001-B5A3-F393-E0A9-E50E24DCCA9E")!
    static let customCharacteristic = BluetoothUUID("6E400002-B5A3-F393-E0A9-E50E24DCCA9E")!
    static let secondaryCustom = BluetoothUUID("6E400010-B5A3-F393-E0A9-E50E24DCCA9E")!

    static let builtIns = BuiltInServices(deviceName: "blesensor", appearance: 0x0341)

    static var heartRate: GATTService {
        GATTService(uuid: BluetoothUUID(0x180D), characteristics: [
            GATTCharacteristic(id: "hr.measurement", uuid: BluetoothUUID(0x2A37), properties: .notify, permissions: []),
            GATTCharacteristic(id: "hr.location", uuid: BluetoothUUID(0x2A38), properties: .read,
                               permissions: .readable, value: .static([0x01])),
            GATTCharacteristic(id: "hr.control", uuid: BluetoothUUID(0x2A39), properties: .write, permissions: .writeable),
        ])
    }

    static var custom: GATTService {
        GATTService(uuid: customService, includedServices: [secondaryCustom, BluetoothUUID(0x180F)], characteristics: [
            GATTCharacteristic(
                id: "custom.setpoint", uuid: customCharacteristic, properties: [.read, .write],
                permissions: [.readable, .writeable], extendedProperties: .reliableWrite,
                descriptors: [
                    .userDescription("Setpoint"),
                    .presentationFormat(format: 0x0E, exponent: -2, unit: 0x272F),
                    // ES Measurement (0x290C): a free descriptor, not covered by the hash.
                    GATTDescriptor(uuid: BluetoothUUID(0x290C), value: .static([0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x01])),
                ]),
        ])
    }

    static var secondary: GATTService {
        GATTService(uuid: secondaryCustom, isPrimary: false, characteristics: [
            GATTCharacteristic(id: "secondary.temperature", uuid: BluetoothUUID(0x2A6E), properties: .read,
                               permissions: .readable, value: .static([0x10, 0x09])),
        ])
    }

    static var battery: GATTService {
        GATTService(uuid: BluetoothUUID(0x180F), isPrimary: false, characteristics: [
            GATTCharacteristic(id: "battery.level", uuid: BluetoothUUID(0x2A19), properties: [.read, .notify],
                               permissions: .readable),
        ])
    }

    static func sampleDatabase() throws -> AttributeDatabase {
        try AttributeDatabase.build(services: [heartRate, custom, secondary, battery], builtInServices: builtIns)
    }

    static func heartRateDatabase() throws -> AttributeDatabase {
        try AttributeDatabase.build(services: [heartRate], builtInServices: builtIns)
    }

    static func hex(_ text: String) -> [UInt8] {
        (try? [UInt8](hex: text)) ?? []
    }
}
