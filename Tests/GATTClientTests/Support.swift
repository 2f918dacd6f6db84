import ATT
import BLECore
import GATT
import GATTClient
import GATTServer
import HCI
import L2CAP
import Synchronization
import TestSupport

enum Fixture {
    static let customService = BluetoothUUID("12345678-0000-4000-8000-0000000000A0")!
    static let setpointUUID = BluetoothUUID("12345678-0000-4000-8000-0000000000A1")!
    static let longUUID = BluetoothUUID("12345678-0000-4000-8000-0000000000A2")!
    static let alertUUID = BluetoothUUID("12345678-0000-4000-8000-0000000000A4")!
    static let heartRate = BluetoothUUID(0x180D)
    static let battery = BluetoothUUID(0x180F)

    static let measurement: CharacteristicID = "hr.measurement"
    static let location: CharacteristicID = "hr.location"
    static let batteryLevel: CharacteristicID = "battery.level"
    static let setpoint: CharacteristicID = "custom.setpoint"
    static let long: CharacteristicID = "custom.long"
    static let alert: CharacteristicID = "custom.alert"

    /// 300 octets: more than one Read Response at MTU 247 or 23.
    static let longValue: [UInt8] = (0..<300).map { UInt8(truncatingIfNeeded: $0 * 7) }

    static let heartRateService = GATTService(uuid: heartRate, characteristics: [
        GATTCharacteristic(id: measurement, uuid: BluetoothUUID(0x2A37), properties: .notify, permissions: []),
        GATTCharacteristic(id: location, uuid: BluetoothUUID(0x2A38), properties: .read, permissions: .readable, value: .static([0x01])),
    ])
    static let batteryService = GATTService(uuid: battery, characteristics: [
        GATTCharacteristic(id: batteryLevel, uuid: BluetoothUUID(0x2A19), properties: [.read, .notify], permissions: .readable),
    ])
    static let custom = GATTService(uuid: customService, includedServices: [battery], characteristics: [
        GATTCharacteristic(id: setpoint, uuid: setpointUUID, properties: [.read, .write, .writeWithoutResponse],
                           permissions: [.readable, .writeable], descriptors: [.userDescription("Setpoint")]),
        GATTCharacteristic(id: long, uuid: longUUID, properties: .read, permissions: .readable, value: .static(longValue)),
        GATTCharacteristic(id: alert, uuid: alertUUID, properties: .indicate, permissions: []),
    ])

    static func database(_ services: [GATTService] = [heartRateService, batteryService, custom]) throws -> AttributeDatabase {
        try AttributeDatabase.build(services: services, builtInServices: BuiltInServices(deviceName: "blesensor", appearance: 0x0341))
    }

    static func link(role: HCIRole, handle: UInt16 = 0x0040) -> Link {
        Link(handle: handle, role: role, peer: DeviceAddress(BluetoothAddress("C0:00:00:00:00:C1")!, type: .randomDevice),
             parameters: Link.Parameters(interval: 24, latency: 0, supervisionTimeout: 500))
    }
}

/// The server's application side: dynamic values from a table, writes and confirmations recorded.
final class RecordingDelegate: GATTServerDelegate {
    let values = Mutex<[CharacteristicID: [UInt8]]>([:])
    let writes = Recorder<(items: [GATTWriteItem], kind: GATTWriteKind)>()
    let subscriptions = Recorder<(CharacteristicID, ClientConfiguration)>()
    let confirmations = Recorder<Int>()

    func read(_ request: GATTReadRequest) async -> Result<[UInt8], ATTErrorCode> {
        .success(values.withLock { $0[request.characteristic] } ?? [])
    }

    func write(_ items: [GATTWriteItem], link: Link, kind: GATTWriteKind) async -> Result<Void, ATTErrorCode> {
        values.withLock { values in for item in items where item.descriptor == nil { values[item.characteristic] = item.value } }
        writes.append((items, kind))
        return .success(())
    }

    func subscriptionChanged(link: Link, characteristic: CharacteristicID, configuration: ClientConfiguration) {
        subscriptions.append((characteristic, configuration))
    }

    func indicationConfirmed(link: Link) -> UInt16? {
        confirmations.append(1)
        return nil
    }

    func mtuChanged(link: Link, mtu: Int) {}
}

/// Our client against our server in-process: client output → server, server output → client.
final class ServerPair: Sendable {
    let server: GATTServer
    let delegate = RecordingDelegate()
    let client: GATTClient
    let clientLink = Fixture.link(role: .central)
    let serverLink = Fixture.link(role: .peripheral)
    let clock = ManualClock()
    /// Whether the client's link has room for Write Without Response.
    let commandRoom = Locked(true)
    let commands = Recorder<[UInt8]>()

    init(serverMTU: Int = 247, clientMTU: Int = 247) throws {
        var serverConfiguration = GATTServer.Configuration()
        serverConfiguration.mtu = serverMTU
        let box = Mutex<GATTClient?>(nil)
        server = GATTServer(database: try Fixture.database(), configuration: serverConfiguration, delegate: delegate,
                            output: ATTBearer(send: { _, pdu in
                                box.withLock { $0 }?.receive(pdu)
                                return .sent
                            }, waitForRoom: { _ in }))
        let serverRef = server, serverLink = serverLink, commandRoom = commandRoom, commands = commands
        client = GATTClient(link: clientLink, configuration: .init(clock: clock, rxMTU: clientMTU),
                            output: ATTBearer(send: { _, pdu in
                                if pdu.first == ATTOpcode.writeCommand.rawValue {
                                    guard commandRoom.value else { return .full }
                                    commands.append(pdu)
                                }
                                serverRef.receive(pdu, on: serverLink)
                                return .sent
                            }, waitForRoom: { _ in }, hasRoomForCommand: { _ in commandRoom.value }))
        box.withLock { $0 = client }
        server.linkOpened(serverLink)
    }

    /// Sends a server-initiated PDU to the client as the server's notification engine would.
    func push(_ pdu: ATTPDU) { client.receive(pdu.encode()) }
}

/// A scripted peer: records what the client sends, the test answers by hand.
final class ScriptedPeer: Sendable {
    let link = Fixture.link(role: .central)
    let clock = ManualClock()
    let sent = Recorder<[UInt8]>()
    let client: GATTClient

    init(mtu: Int = 23, updateBufferLimit: Int = 1024) {
        let sent = sent
        link.setMTU(mtu)
        client = GATTClient(link: link, configuration: .init(clock: clock, updateBufferLimit: updateBufferLimit),
                            output: ATTBearer(send: { _, pdu in
                                sent.append(pdu)
                                return .sent
                            }, waitForRoom: { _ in }, hasRoomForCommand: { _ in true }))
    }

    /// Waits for the client's `number`th PDU (1-based) and decodes it.
    func request(_ number: Int) async -> ATTPDU? {
        guard await sent.wait(for: number) else { return nil }
        return try? ATTPDU.decode(sent.all[number - 1])
    }

    func answer(_ pdu: ATTPDU) { client.receive(pdu.encode()) }
    func answer(bytes: [UInt8]) { client.receive(bytes) }
}

/// Collects an AsyncStream into a Recorder, so tests can wait for elements.
func record<T: Sendable>(_ stream: AsyncStream<T>) -> Recorder<T> {
    let recorder = Recorder<T>()
    Task {
        for await item in stream { recorder.append(item) }
        recorder.finish()
    }
    return recorder
}
