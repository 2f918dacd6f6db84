import ATT
import BLECore
import Dispatch
import GATT
import GATTServer
import HCI
import L2CAP
import Synchronization

/// The GATT server as a client drives it: a sequence of ATT PDUs (requests, commands, prepare and
/// execute, CCCD writes, MTU exchanges) read from the input, on a database with every kind of
/// attribute. A sentinel request after them proves the server still answers in order: every
/// request is answered in order (one never answered hangs the target: libFuzzer's -timeout), and
/// no PDU is longer than ATT's largest MTU (517).
enum GATTServerFuzzing {
    static let database: AttributeDatabase = {
        let custom = BluetoothUUID("12345678-0000-4000-8000-0000000000A0")!
        let services = [
            GATTService(uuid: BluetoothUUID(0x180D), characteristics: [
                GATTCharacteristic(id: "hr.measurement", uuid: BluetoothUUID(0x2A37), properties: .notify, permissions: []),
                GATTCharacteristic(id: "hr.location", uuid: BluetoothUUID(0x2A38), properties: .read, permissions: .readable, value: .static([0x01])),
                GATTCharacteristic(id: "hr.control", uuid: BluetoothUUID(0x2A39), properties: .write, permissions: .writeable),
            ]),
            GATTService(uuid: custom, characteristics: [
                GATTCharacteristic(id: "custom.setpoint", uuid: BluetoothUUID("12345678-0000-4000-8000-0000000000A1")!,
                                   properties: [.read, .write, .writeWithoutResponse], permissions: [.readable, .writeable],
                                   descriptors: [.userDescription("Setpoint"),
                                                 GATTDescriptor(uuid: BluetoothUUID(0x2906), permissions: [.readable, .writeable], value: .dynamic)]),
                GATTCharacteristic(id: "custom.long", uuid: BluetoothUUID("12345678-0000-4000-8000-0000000000A2")!, properties: .read,
                                   permissions: .readable, value: .static((0..<400).map { UInt8(truncatingIfNeeded: $0) })),
                GATTCharacteristic(id: "custom.secure", uuid: BluetoothUUID("12345678-0000-4000-8000-0000000000A3")!, properties: [.read, .write],
                                   permissions: [.readable, .readEncryptionRequired, .writeable, .writeAuthenticationRequired]),
                GATTCharacteristic(id: "custom.alert", uuid: BluetoothUUID("12345678-0000-4000-8000-0000000000A4")!, properties: .indicate, permissions: []),
            ]),
        ]
        do { return try AttributeDatabase.build(services: services, builtInServices: BuiltInServices(deviceName: "blesensor", appearance: 0x0341)) } catch {
            fatalError("the fuzz database does not build: \(error)")
        }
    }()

    /// Read By Group Type over every handle for primary services: always answered.
    static let sentinel: [UInt8] = [0x10, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28]

    static func run(_ bytes: [UInt8]) {
        var input = ByteCursor(bytes)
        var pdus: [[UInt8]] = []
        while let length = input.next() {
            let pdu = input.take(Int(length) % 80)
            if !pdu.isEmpty { pdus.append(pdu) }
        }
        let sent = Mutex<[[UInt8]]>([])
        let anything = DispatchSemaphore(value: 0)
        let output = ATTBearer(send: { _, pdu in
            sent.withLock { $0.append(pdu) }
            anything.signal()
            return .sent
        }, waitForRoom: { _ in })
        let server = GATTServer(database: database, delegate: AnsweringDelegate(), output: output)
        let link = Link(handle: 0x40, role: .peripheral,
                        peer: DeviceAddress(BluetoothAddress(littleEndian: [1, 2, 3, 4, 5, 0xC6]), type: .randomDevice),
                        parameters: .init(interval: 24, latency: 0, supervisionTimeout: 400))
        server.linkOpened(link)
        defer { server.linkClosed(link) }
        // As a client must (Core Vol 3 Part F 3.3.2), a request waits for its response; commands do not.
        for pdu in pdus + [sentinel] {
            let before = sent.withLock { $0.count }
            server.receive(pdu, on: link)
            guard ATTPDU.answersAsRequest(ATTOpcode(rawValue: pdu[0])) else { continue }
            // No wall-clock bound: a request never answered is a hang, which libFuzzer's -timeout
            // reports (and the replay test's time limit bounds); a busy machine is merely slow.
            while sent.withLock({ $0.count }) == before { anything.wait() }
        }
        let last = sent.withLock { $0.last } ?? []
        FuzzInvariant.check(last.first == 0x11 && last.count > 6 && last[2] == 0x01 && last[3] == 0x00,
                            "the sentinel's answer is \(last), not the primary services from handle 1")
        for pdu in sent.withLock({ $0 }) {
            FuzzInvariant.check(pdu.count <= 517, "a \(pdu.count)-byte ATT PDU")
        }
    }

    /// Answers reads with a short value and accepts writes, as an application would.
    final class AnsweringDelegate: GATTServerDelegate {
        func read(_ request: GATTReadRequest) async -> Result<[UInt8], ATTErrorCode> { .success([0x2A, 0x00]) }
        func write(_ items: [GATTWriteItem], link: Link, kind: GATTWriteKind) async -> Result<Void, ATTErrorCode> { .success(()) }
        func subscriptionChanged(link: Link, characteristic: CharacteristicID, configuration: ClientConfiguration) {}
        func indicationConfirmed(link: Link) -> UInt16? { nil }
        func mtuChanged(link: Link, mtu: Int) {}
    }
}
