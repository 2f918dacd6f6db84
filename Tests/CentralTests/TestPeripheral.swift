import BLECore
import Bonding
import GATT
import Peripheral
import SMP
import TestSupport
import VirtualController

/// Our own peripheral on a virtual radio, as the central's peer: Heart Rate (notify), a Health
/// Thermometer measurement (indicate), a 300-byte readable value, a writable value (with and
/// without response) and, with security, a value readable only over an encrypted link.
struct TestPeripheral {
    static let name = "central-test-peer"
    static let address = BluetoothAddress("C5:00:00:00:00:1E")!
    static let measurement = CharacteristicID("heart-rate.measurement")
    static let temperature = CharacteristicID("thermometer.measurement")
    static let long = CharacteristicID("test.long")
    static let writable = CharacteristicID("test.writable")
    static let secret = CharacteristicID("test.secret")
    /// Readable, but the application never answers (tests of the ATT transaction timeout).
    static let unanswered = CharacteristicID("test.unanswered")
    static let unansweredUUID = BluetoothUUID("6E400005-B5A3-F393-E0A9-E50E24DCCA9E")!
    static let customService = BluetoothUUID("6E400001-B5A3-F393-E0A9-E50E24DCCA9E")!
    static let longUUID = BluetoothUUID("6E400002-B5A3-F393-E0A9-E50E24DCCA9E")!
    static let writableUUID = BluetoothUUID("6E400003-B5A3-F393-E0A9-E50E24DCCA9E")!
    static let secretUUID = BluetoothUUID("6E400004-B5A3-F393-E0A9-E50E24DCCA9E")!
    /// With security: readable only over a link encrypted with an authenticated key.
    static let authenticatedSecret = CharacteristicID("test.authenticated-secret")
    static let authenticatedSecretUUID = BluetoothUUID("6E400006-B5A3-F393-E0A9-E50E24DCCA9E")!
    static let longValue = (0..<300).map { UInt8(truncatingIfNeeded: $0 * 7) }

    let radio: VirtualRadio
    let manager: PeripheralManager
    let events = Recorder<PeripheralEvent>()
    let bonds = InMemoryBondStore()

    /// `address` and `controllerAddress` tell several test peripherals on one radio apart.
    /// `usesPublicAddress`: advertise with the controller's public address instead of `address`.
    /// `security`: the Security Manager's configuration and agent when `secured`.
    init(radio: VirtualRadio = VirtualRadio(label: "central-tests"), secured: Bool = false, address: BluetoothAddress = Self.address,
         controllerAddress: BluetoothAddress = BluetoothAddress("00:1B:DC:00:00:1E")!, usesPublicAddress: Bool = false,
         security: SecurityManager.Configuration = .init(), agent: any PairingAgent = AutomaticPairingAgent()) async throws {
        self.radio = radio
        let controller = radio.makeController(configuration: .init(address: controllerAddress))
        var configuration = PeripheralManager.Configuration(deviceName: Self.name)
        configuration.addressPolicy = usesPublicAddress ? .publicAddress : .randomStatic(address)
        if secured { configuration.security = SecuritySetup(configuration: security, store: bonds, agent: agent) }
        manager = PeripheralManager(transport: controller, configuration: configuration)
        try await manager.start()
        try await manager.add(GATTService(uuid: BluetoothUUID(0x180D), characteristics: [
            GATTCharacteristic(id: Self.measurement, uuid: BluetoothUUID(0x2A37), properties: [.notify], permissions: []),
        ]))
        try await manager.add(GATTService(uuid: BluetoothUUID(0x1809), characteristics: [
            GATTCharacteristic(id: Self.temperature, uuid: BluetoothUUID(0x2A1C), properties: [.indicate], permissions: []),
        ]))
        try await manager.add(GATTService(uuid: Self.customService, characteristics: [
            GATTCharacteristic(id: Self.long, uuid: Self.longUUID, properties: [.read], permissions: [.readable], value: .static(Self.longValue)),
            GATTCharacteristic(id: Self.writable, uuid: Self.writableUUID, properties: [.write, .writeWithoutResponse],
                               permissions: [.writeable]),
            GATTCharacteristic(id: Self.secret, uuid: Self.secretUUID, properties: [.read],
                               permissions: [.readable, .readEncryptionRequired], value: .static([0x5E, 0xC2])),
            GATTCharacteristic(id: Self.unanswered, uuid: Self.unansweredUUID, properties: [.read], permissions: [.readable]),
        ] + (secured ? [
            GATTCharacteristic(id: Self.authenticatedSecret, uuid: Self.authenticatedSecretUUID, properties: [.read],
                               permissions: [.readable, .readEncryptionRequired, .readAuthenticationRequired], value: .static([0xA7])),
        ] : [])))
        try await manager.publish()
        try await manager.startAdvertising(localName: Self.name, serviceUUIDs: [BluetoothUUID(0x180D), Self.customService])
        let manager = manager, events = events
        Task {
            for await event in manager.events {
                // Writes are accepted at once; the test reads what arrived from the events.
                if case let .writeRequests(batch) = event { try? manager.respond(to: batch, with: .success(())) }
                events.append(event)
            }
        }
    }

    func waitForSubscription(to id: CharacteristicID) async {
        await events.wait { if case let .subscribed(_, subscribed) = $0 { subscribed == id } else { false } }
    }

    /// Values written to `writable`, in arrival order.
    var writes: [[UInt8]] {
        events.all.flatMap { event -> [[UInt8]] in
            guard case let .writeRequests(batch) = event else { return [] }
            return batch.requests.filter { $0.characteristic == Self.writable }.map(\.value)
        }
    }

    var pairings: Int { events.count { if case .paired = $0 { true } else { false } } }
}
