import BLEPeripheral

/// The example's GATT services, declared the way CoreBluetooth's guide builds a CBMutableService.
enum ExampleServices {
    static let heartRateService = BluetoothUUID(0x180D)
    static let measurement = CharacteristicID("heart-rate.measurement")
    static let bodySensorLocation = CharacteristicID("heart-rate.body-sensor-location")
    static let controlPoint = CharacteristicID("heart-rate.control-point")

    static let exampleService = BluetoothUUID("B1E5C000-5E45-4F52-8000-00805F9B34FB")!
    static let echo = CharacteristicID("example.echo")
    static let long = CharacteristicID("example.long")
    static let counter = CharacteristicID("example.counter")
    static let echoUUID = BluetoothUUID("B1E5C001-5E45-4F52-8000-00805F9B34FB")!
    static let longUUID = BluetoothUUID("B1E5C002-5E45-4F52-8000-00805F9B34FB")!
    static let counterUUID = BluetoothUUID("B1E5C003-5E45-4F52-8000-00805F9B34FB")!

    /// A value longer than one ATT MTU, so centrals must use Read Blob.
    static let longValue = (0..<400).map { UInt8(truncatingIfNeeded: $0) }

    static var heartRate: GATTService {
        GATTService(uuid: heartRateService, characteristics: [
            // Notify only: the measurement is pushed, never read (Heart Rate Service 3.1).
            GATTCharacteristic(id: measurement, uuid: BluetoothUUID(0x2A37), properties: [.notify], permissions: []),
            GATTCharacteristic(id: bodySensorLocation, uuid: BluetoothUUID(0x2A38), properties: [.read],
                               permissions: [.readable], value: .static([0x01])),
            GATTCharacteristic(id: controlPoint, uuid: BluetoothUUID(0x2A39), properties: [.write], permissions: [.writeable]),
        ])
    }

    static var example: GATTService {
        GATTService(uuid: exampleService, characteristics: [
            GATTCharacteristic(id: echo, uuid: echoUUID, properties: [.read, .write, .writeWithoutResponse],
                               permissions: [.readable, .writeable], descriptors: [.userDescription("Echo")]),
            GATTCharacteristic(id: long, uuid: longUUID, properties: [.read], permissions: [.readable], value: .static(longValue)),
            GATTCharacteristic(id: counter, uuid: counterUUID, properties: [.read, .indicate], permissions: [.readable]),
        ])
    }

    static func uuid(of characteristic: CharacteristicID) -> String {
        switch characteristic {
        case measurement: return "2A37"
        case bodySensorLocation: return "2A38"
        case controlPoint: return "2A39"
        case echo: return echoUUID.description
        case long: return longUUID.description
        case counter: return counterUUID.description
        default: return characteristic.rawValue
        }
    }
}
