import BLECore
import Bonding
import GATT
import Logging
import Peripheral
import SMP
import Testing
import TestSupport
import VirtualController
@testable import BLESensorDaemon

/// A published peripheral on a virtual radio serving Heart Rate, a Health Thermometer with an
/// indicated measurement, and a Device Information string, the way the daemon will.
struct DemoPeripheral {
    static let name = "demo-sensor"
    static let address = BluetoothAddress("C5:00:00:00:00:0D")!
    static let measurement = CharacteristicID("heart-rate.measurement")
    static let bodySensorLocation = CharacteristicID("heart-rate.body-sensor-location")
    static let temperature = CharacteristicID("thermometer.measurement")
    static let manufacturer = CharacteristicID("device-information.manufacturer")
    
    let radio = VirtualRadio(label: "demo-central-tests")
    let manager: PeripheralManager
    let events = Recorder<PeripheralEvent>()

    static let secret = CharacteristicID("test.secret")

    /// `secured` pairs centrals and adds a value readable only over an encrypted link.
    init(secured: Bool = false) async throws {
        let controller = radio.makeController(configuration: .init(address: BluetoothAddress("00:1B:DC:00:00:0D")!))
        var configuration = PeripheralManager.Configuration(deviceName: Self.name)
        configuration.addressPolicy = .randomStatic(Self.address)
        if secured { configuration.security = SecuritySetup(store: InMemoryBondStore()) }
        manager = PeripheralManager(transport: controller, configuration: configuration)
        try await manager.start()
        try await manager.add(GATTService(uuid: BluetoothUUID(0x180D), characteristics: [
            GATTCharacteristic(id: Self.measurement, uuid: BluetoothUUID(0x2A37), properties: [.notify], permissions: []),
            GATTCharacteristic(id: Self.bodySensorLocation, uuid: BluetoothUUID(0x2A38), properties: [.read],
                               permissions: [.readable], value: .static([0x01])),
        ]))
        try await manager.add(GATTService(uuid: BluetoothUUID(0x1809), characteristics: [
            GATTCharacteristic(id: Self.temperature, uuid: BluetoothUUID(0x2A1C), properties: [.indicate], permissions: []),
        ]))
        try await manager.add(GATTService(uuid: BluetoothUUID(0x180A), characteristics: [
            GATTCharacteristic(id: Self.manufacturer, uuid: BluetoothUUID(0x2A29), properties: [.read],
                               permissions: [.readable], value: .static(Array("blesensor".utf8))),
        ]))
        if secured {
            try await manager.add(GATTService(uuid: BluetoothUUID("0000FEE0-1234-5678-9ABC-DEF012345678")!, characteristics: [
                GATTCharacteristic(id: Self.secret, uuid: BluetoothUUID("0000FEE1-1234-5678-9ABC-DEF012345678")!,
                                   properties: [.read], permissions: [.readable, .readEncryptionRequired], value: .static([0x5E, 0xC2])),
            ]))
        }
        try await manager.publish()
        try await manager.startAdvertising(localName: Self.name, serviceUUIDs: [BluetoothUUID(0x180D)])
        let manager = manager, events = events
        Task { for await event in manager.events { events.append(event) } }
    }

    func waitForSubscription(to id: CharacteristicID) async {
        await events.wait { if case let .subscribed(_, subscribed) = $0 { subscribed == id } else { false } }
    }

    var indicationTimeouts: Int {
        events.count { if case .indicationTimedOut = $0 { true } else { false } }
    }
}

/// Heart rate 72 bpm, sensor contact detected, one RR-interval of 853/1024 s (833 ms).
let heartRateValue: [UInt8] = [0x16, 72, 0x55, 0x03]
/// 36.6 °C as an IEEE 11073 FLOAT (mantissa 366, exponent −1), no optional fields.
let temperatureValue: [UInt8] = [0x00, 0x6E, 0x01, 0x00, 0xFF]

@Suite(.scaledTimeLimit(minutes: 1)) struct DemoCentralTests {
    @Test func demoCentralPrintsTheTreeReadingsAndLiveDecodedValues() async throws {
        let peripheral = try await DemoPeripheral()
        let lines = Recorder<String>()
        var demo = DemoCentral(radio: peripheral.radio, peripheralName: DemoPeripheral.name, logger: Logger(label: "demo-central-test"))
        demo.clock = ManualClock()
        demo.report = { lines.append($0) }
        let running = Task { [demo] in await demo.run() }

        await peripheral.waitForSubscription(to: DemoPeripheral.measurement)
        await peripheral.waitForSubscription(to: DemoPeripheral.temperature)
        await lines.wait { $0.contains("demo central: subscribed to 2A1C Temperature Measurement (indications)") }
        let setup = lines.all
        #expect(setup.contains("demo central: connected to \(DeviceAddress(DemoPeripheral.address, type: .randomDevice)), ATT MTU 247"))
        #expect(setup.contains { $0.hasPrefix("demo central: service 180D Heart Rate, handles ") })
        #expect(setup.contains { $0.hasPrefix("demo central:   characteristic 2A37 Heart Rate Measurement, value handle ")
                && $0.hasSuffix("notify; descriptors: 2902 Client Characteristic Configuration") })
        #expect(setup.contains("demo central: read 2A29 Manufacturer Name String: \"blesensor\""))
        #expect(setup.contains("demo central: read 2A38 Body Sensor Location: Location: Chest (1); Code: 1"))
        #expect(setup.contains("demo central: subscribed to 2A37 Heart Rate Measurement (notifications)"))

        #expect(peripheral.manager.updateValue(heartRateValue, for: DemoPeripheral.measurement))
        await lines.wait(for: 1) { $0.hasPrefix("demo central: 2A37 Heart Rate Measurement: ") }
        try await peripheral.manager.updateValueWaitingForRoom(temperatureValue, for: DemoPeripheral.temperature)
        await lines.wait(for: 1) { $0.hasPrefix("demo central: 2A1C Temperature Measurement: ") }
        let heartRate = lines.all.first { $0.hasPrefix("demo central: 2A37 ") }
        #expect(heartRate?.contains("Heart rate: 72 bpm") == true)
        #expect(heartRate?.contains("RR-intervals: 833") == true)
        #expect(lines.all.contains("demo central: 2A1C Temperature Measurement: Temperature: 36.6 °C; Unit: °C"))
        #expect(lines.all.allSatisfy { $0.hasPrefix("demo central: ") && !$0.contains("\n") })

        running.cancel()
        await running.value
        #expect(lines.all.last?.hasPrefix("demo central: stopped; left ") == true)
        #expect(peripheral.indicationTimeouts == 0)
        await peripheral.manager.shutdown()
    }

    @Test func demoCentralStartsOverAfterTheLinkDrops() async throws {
        let peripheral = try await DemoPeripheral()
        let lines = Recorder<String>()
        let clock = ManualClock()
        var demo = DemoCentral(radio: peripheral.radio, peripheralName: DemoPeripheral.name, logger: Logger(label: "demo-central-test"))
        demo.clock = clock
        demo.report = { lines.append($0) }
        let running = Task { [demo] in await demo.run() }

        await peripheral.waitForSubscription(to: DemoPeripheral.temperature)
        let connected = peripheral.events.all.compactMap { if case let .centralConnected(central) = $0 { central } else { nil } }
        let central = try #require(connected.first)
        try await peripheral.manager.gap.disconnect(central.link)
        await lines.wait { $0.hasPrefix("demo central: link to ") && $0.contains(" down (") }
        // The pause runs on the injected clock: nothing happens until it passes. Other timers of the
        // central's stack share the clock, so wait until the pause is what comes next.
        await clock.waitUntilNextDeadline(is: clock.now + demo.pause)
        clock.advance(by: demo.pause)
        await peripheral.events.wait(for: 2) { if case let .subscribed(_, id) = $0 { id == DemoPeripheral.temperature } else { false } }
        #expect(lines.count { $0.hasPrefix("demo central: connected to ") } == 2)

        running.cancel()
        await running.value
        await peripheral.manager.shutdown()
    }

    @Test func demoCentralPairsBeforeReadingWhenThePeripheralRequiresEncryption() async throws {
        let peripheral = try await DemoPeripheral(secured: true)
        let lines = Recorder<String>()
        var demo = DemoCentral(radio: peripheral.radio, peripheralName: DemoPeripheral.name, logger: Logger(label: "demo-central-test"))
        demo.clock = ManualClock()
        demo.pairing = DemoCentral.Pairing(passkey: nil)
        demo.report = { lines.append($0) }
        let running = Task { [demo] in await demo.run() }

        await peripheral.waitForSubscription(to: DemoPeripheral.temperature)
        #expect(lines.all.contains { $0.hasPrefix("demo central: paired (") })
        #expect(lines.all.contains("demo central: read 0000FEE1-1234-5678-9ABC-DEF012345678: 0x5ec2"))
        #expect(peripheral.events.count { if case .paired = $0 { true } else { false } } == 1)

        running.cancel()
        await running.value
        await peripheral.manager.shutdown()
    }

    /// After a daemon restart the peripheral still holds the bond; pairing again with Just Works
    /// would be refused as a takeover, so the demo central must re-encrypt with its own half.
    @Test func demoCentralReencryptsWithItsBondAfterARestart() async throws {
        let peripheral = try await DemoPeripheral(secured: true)
        let bonds = InMemoryBondStore()
        func runDemo(until expected: String) async throws -> [String] {
            let lines = Recorder<String>()
            var demo = DemoCentral(radio: peripheral.radio, peripheralName: DemoPeripheral.name, logger: Logger(label: "demo-central-test"))
            demo.clock = ManualClock()
            demo.pairing = DemoCentral.Pairing(passkey: nil)
            demo.bonds = bonds
            demo.report = { lines.append($0) }
            let running = Task { [demo] in await demo.run() }
            await lines.wait { $0.hasPrefix("demo central: subscribed to 2A1C ") }
            running.cancel()
            await running.value
            #expect(lines.all.contains { $0.hasPrefix(expected) })
            return lines.all
        }
        _ = try await runDemo(until: "demo central: paired (")
        let second = try await runDemo(until: "demo central: encrypted with the stored bond (16-octet key)")
        #expect(!second.contains { $0.contains("pairing") || $0.contains("paired") })
        #expect(second.contains("demo central: read 0000FEE1-1234-5678-9ABC-DEF012345678: 0x5ec2"))
        #expect(peripheral.events.count { if case .paired = $0 { true } else { false } } == 1)
        await peripheral.manager.shutdown()
    }
}
