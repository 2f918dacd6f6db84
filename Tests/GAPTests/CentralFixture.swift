import BLECore
import HCI
import L2CAP
import Testing
import TestSupport
import VirtualController
@testable import GAP

/// The central role's events as they come, with the predicates tests wait on.
enum CentralLog {
    static func recording(_ central: GAPCentral) -> Recorder<GAPCentralEvent> {
        let recorder = Recorder<GAPCentralEvent>()
        Task {
            for await event in central.events { recorder.append(event) }
            recorder.finish()
        }
        return recorder
    }

    static func report(from peer: DeviceAddress) -> @Sendable (GAPCentralEvent) -> Bool {
        { if case let .scanReport(report) = $0 { return report.peer == peer } else { return false } }
    }

    static func reports(_ log: Recorder<GAPCentralEvent>, from peer: DeviceAddress) -> [ScanReport] {
        log.all.compactMap { if case let .scanReport(report) = $0, report.peer == peer { return report } else { return nil } }
    }

    static let connected: @Sendable (GAPCentralEvent) -> Bool = { if case .connected = $0 { return true } else { return false } }
    static let disconnected: @Sendable (GAPCentralEvent) -> Bool = { if case .disconnected = $0 { return true } else { return false } }
    static let updated: @Sendable (GAPCentralEvent) -> Bool = { if case .connectionUpdated = $0 { return true } else { return false } }
    static let recovered: @Sendable (GAPCentralEvent) -> Bool = { if case .controllerRecovered = $0 { return true } else { return false } }
    static let encryption: @Sendable (GAPCentralEvent) -> Bool = { if case .encryptionChanged = $0 { return true } else { return false } }
}

/// One host on the shared radio, with a virtual-time host clock.
struct Station {
    let controller: VirtualController
    let host: HCIHost

    init(radio: VirtualRadio, address: String, scansWhileInitiating: Bool = true) async throws {
        var configuration = VirtualController.Configuration(address: BluetoothAddress(address)!)
        configuration.scansWhileInitiating = scansWhileInitiating
        controller = radio.makeController(configuration: configuration)
        var hostConfiguration = HCIHost.Configuration()
        hostConfiguration.clock = ManualClock()
        host = HCIHost(transport: controller, configuration: hostConfiguration)
        _ = try await host.start()
    }
}

/// A central station (GAPCentral) and a peripheral station (GAPPeripheral advertising) on one radio.
struct CentralFixture {
    let radio = VirtualRadio(label: "gap-central-tests")
    let centralStation: Station
    let central: GAPCentral
    let log: Recorder<GAPCentralEvent>
    /// Connection timeouts run on this clock.
    let clock = ManualClock()
    let peripheralStation: Station
    let peripheral: GAPPeripheral
    let peripheralLog: Recorder<GAPEvent>
    let peripheralAddress = BluetoothAddress("C4:22:33:44:55:66")!

    init(scansWhileInitiating: Bool = true) async throws {
        centralStation = try await Station(radio: radio, address: "00:1B:DC:00:00:0C", scansWhileInitiating: scansWhileInitiating)
        central = GAPCentral(host: centralStation.host, configuration: .init(clock: clock))
        log = CentralLog.recording(central)
        await central.start()
        peripheralStation = try await Station(radio: radio, address: "00:1B:DC:00:00:01")
        peripheral = GAPPeripheral(host: peripheralStation.host, configuration: .init(addressPolicy: .randomStatic(peripheralAddress)))
        peripheralLog = GAPEventLog.recording(peripheral)
        try await peripheral.start()
    }

    var peripheralIdentity: DeviceAddress { DeviceAddress(peripheralAddress, type: .randomDevice) }

    static let content = AdvertisingContent(
        localName: "Environment-Sensor-12", serviceUUIDs: [BluetoothUUID(0x181A)],
        serviceData: [.init(uuid: BluetoothUUID(0x181A), data: [0x2C, 0x09])],
        manufacturerData: .init(companyIdentifier: 0x05F1, data: [0x01, 0x02]))

    @discardableResult
    func advertise() async throws -> AdvertisingPlan {
        try await peripheral.startAdvertising(Self.content)
    }

    /// Connects and returns both ends: the central's link and the peripheral's.
    func connect() async throws -> (central: Link, peripheral: Link) {
        let link = try await central.connect(to: peripheralIdentity, timeout: .seconds(5))
        await peripheralLog.wait(for: 1, where: GAPEventLog.connected)
        let peripheralLink = try #require(peripheral.activeLinks.first)
        return (link, peripheralLink)
    }

    func shutdown() async {
        await centralStation.host.shutdown()
        await peripheralStation.host.shutdown()
    }
}
