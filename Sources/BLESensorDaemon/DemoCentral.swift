import BLECore
import GAP
import GATT
import HCI
import Logging
import VirtualController

/// In demo mode, a phone-like central on the virtual radio: it finds the daemon's peripheral,
/// connects, discovers the whole GATT database, reads what is readable, subscribes to everything
/// that notifies or indicates and logs every value decoded, so a user without hardware sees the
/// live readings. If the link drops it starts over after `pause`. Every line starts with
/// "demo central: " and also goes to `report` (tests read them there).
struct DemoCentral: Sendable {
    let radio: VirtualRadio
    let peripheralName: String
    let logger: Logger
    /// Drives the pauses and the ATT transaction timeout; tests inject a `ManualClock`.
    var clock: any HostClock = SystemClock.shared
    var pause: Duration = .seconds(3)
    var scanWindow: Duration = .seconds(1)
    var clientRxMTU: UInt16 = 247
    var address = DeviceAddress(BluetoothAddress("C0:DE:00:00:00:01")!, type: .randomDevice)
    var report: @Sendable (String) -> Void = { _ in }

    /// Runs until the task is cancelled; then leaves the link it holds.
    func run() async {
        let central = radio.makeCentral(address: address)
        while !Task.isCancelled {
            let results = await central.scan(for: scanWindow)
            guard let target = results.first(where: { advertisesName($0) }) else {
                say("\(peripheralName) not heard yet")
                await rest()
                continue
            }
            say("heard \(target.address), \(target.advertisingData.count) bytes of advertising data, \(target.scanResponseData?.count ?? 0) bytes of scan response")
            do {
                let link = try await central.connect(to: target.address)
                await serve(link)
            } catch {
                say("\(error)", level: .warning)
            }
            await rest()
        }
    }

    /// One connection: set up, then print updates until the link drops or the task is cancelled.
    private func serve(_ link: VirtualLink) async {
        let client = DemoGATTClient(link: link, clock: clock, logger: logger)
        defer { client.close() }
        do {
            let mtu = try await client.exchangeMTU(clientRxMTU)
            say("connected to \(link.peer), ATT MTU \(mtu)")
            let services = try await client.discoverAll()
            logTree(services)
            let characteristics = services.flatMap(\.characteristics)
            for characteristic in characteristics {
                try await readValues(of: characteristic, with: client)
            }
            for characteristic in characteristics where !characteristic.properties.isDisjoint(with: .anyUpdate) {
                try await subscribe(to: characteristic, with: client)
            }
            let byHandle = Dictionary(characteristics.map { ($0.valueHandle, $0) }, uniquingKeysWith: { first, _ in first })
            for await update in client.updates {
                say(updateLine(update, byHandle[update.valueHandle]))
            }
        } catch where !Task.isCancelled && error != .disconnected {
            say("\(error); disconnecting", level: .warning)
        } catch {
            // Cancelled or dropped: handled below.
        }
        if Task.isCancelled {
            link.disconnect(reason: .remoteUserTerminated)
            say("stopped; left \(link.peer)")
            return
        }
        link.disconnect(reason: .remoteUserTerminated)
        let reason = await link.disconnected
        say("link to \(link.peer) down (\(reason)); starting over in \(pause)", level: .warning)
    }

    private func logTree(_ services: [DiscoveredService]) {
        say("found \(services.count) service(s), \(services.reduce(0) { $0 + $1.characteristics.count }) characteristic(s)")
        for service in services {
            say("service \(DemoCentralText.label(service.uuid)), handles \(hex4(service.startHandle))-\(hex4(service.endHandle))")
            for characteristic in service.characteristics {
                let descriptors = characteristic.descriptors.map { DemoCentralText.label($0.uuid) }
                say("  characteristic \(DemoCentralText.label(characteristic.uuid)), value handle \(hex4(characteristic.valueHandle)), "
                    + "\(DemoCentralText.properties(characteristic.properties))"
                    + (descriptors.isEmpty ? "" : "; descriptors: \(descriptors.joined(separator: ", "))"))
            }
        }
    }

    /// Reads the value (when readable) and the descriptors worth showing; an attribute that refuses
    /// is logged and skipped, only a broken bearer ends the session.
    private func readValues(of characteristic: DiscoveredCharacteristic, with client: DemoGATTClient) async throws(DemoGATTError) {
        let name = DemoCentralText.label(characteristic.uuid)
        if characteristic.properties.contains(.read) {
            do {
                let value = try await client.read(handle: characteristic.valueHandle)
                say("read \(name): \(DemoCentralText.value(value, of: characteristic.uuid))")
            } catch where !error.endsSession {
                say("read \(name) failed: \(error)", level: .warning)
            }
        }
        for descriptor in characteristic.descriptors where Self.shownDescriptors.contains(descriptor.uuid) {
            let descriptorName = "\(name) / \(DemoCentralText.label(descriptor.uuid))"
            do {
                let value = try await client.read(handle: descriptor.handle)
                say("read \(descriptorName): \(DemoCentralText.value(value, of: descriptor.uuid, characteristic: characteristic.uuid))")
            } catch where !error.endsSession {
                say("read \(descriptorName) failed: \(error)", level: .warning)
            }
        }
    }

    /// Descriptors that describe the value (user description, format, ES settings); the CCCD is ours to write.
    private static let shownDescriptors = Set([0x2901, 0x2904, 0x2906, 0x290B, 0x290C, 0x290D].map { BluetoothUUID(UInt16($0)) })

    private func subscribe(to characteristic: DiscoveredCharacteristic, with client: DemoGATTClient) async throws(DemoGATTError) {
        let name = DemoCentralText.label(characteristic.uuid)
        do {
            let configuration = try await client.subscribe(to: characteristic)
            say("subscribed to \(name) (\(configuration == .notifications ? "notifications" : "indications"))")
        } catch where !error.endsSession {
            say("subscribing to \(name) failed: \(error)", level: .warning)
        }
    }

    private func updateLine(_ update: GATTValueUpdate, _ characteristic: DiscoveredCharacteristic?) -> String {
        guard let characteristic else { return "handle \(hex4(update.valueHandle)): \(DemoCentralText.hex(update.value))" }
        return "\(DemoCentralText.label(characteristic.uuid)): \(DemoCentralText.value(update.value, of: characteristic.uuid))"
    }

    private func say(_ line: String, level: Logger.Level = .info) {
        logger.log(level: level, "demo central: \(line)")
        report("demo central: \(line)")
    }

    private func rest() async {
        try? await clock.sleep(for: pause)
    }

    private func advertisesName(_ result: VirtualCentral.ScanResult) -> Bool {
        let structures = (try? ADStructure.parse(result.advertisingData + (result.scanResponseData ?? []))) ?? []
        let wanted = Array(peripheralName.utf8)
        return structures.contains { structure in
            (structure.type == ADType.completeLocalName && structure.data == wanted)
                || (structure.type == ADType.shortenedLocalName && wanted.starts(with: structure.data))
        }
    }
}
