import BLECore
import Bonding
import BridgeConfiguration
import Central
import GAP
import GATT
import GATTClient
import HCI
import Logging
import SMP
import VirtualController

/// In demo mode, a phone-like central on the virtual radio, built on the public `CentralManager`
/// with a controller of its own: it finds the daemon's peripheral, connects, discovers the whole
/// GATT database, pairs first when the configuration requires encryption, reads what is readable,
/// subscribes to everything that notifies or indicates and logs every value decoded, so a user
/// without hardware sees the live readings. If the link drops it starts over after `pause`. Every
/// line starts with "demo central: " and also goes to `report` (tests read them there).
struct DemoCentral: Sendable {
    /// How the demo central pairs when the peripheral requires encryption.
    struct Pairing: Sendable {
        /// The daemon's fixed passkey, typed in when passkey entry is the method.
        var passkey: UInt32?
    }

    let radio: VirtualRadio
    let peripheralName: String
    let logger: Logger
    /// Drives the pauses and every timer of the central's stack; tests inject a `ManualClock`.
    var clock: any HostClock = SystemClock.shared
    var pause: Duration = .seconds(3)
    var address = BluetoothAddress("C0:DE:00:00:00:01")!
    /// Set when some characteristic needs an encrypted link: pair before reading and subscribing.
    var pairing: Pairing? = nil
    /// The central's own bonds. The daemon keeps them beside its own, so after a restart the demo
    /// re-encrypts instead of pairing again (the daemon refuses a Just Works pairing that would
    /// replace an existing bond it cannot prove, as it must for a real phone).
    var bonds: any BondStore = InMemoryBondStore()
    var report: @Sendable (String) -> Void = { _ in }

    /// Pairing when the configuration requires encryption or authentication somewhere (and the
    /// daemon allows pairing at all); the fixed passkey, when there is one, is what the demo types.
    static func pairing(for settings: SecuritySettings) -> Pairing? {
        guard !settings.requireEncryption.isEmpty || !settings.requireAuthentication.isEmpty else { return nil }
        if case let .fixed(passkey) = settings.passkey { return Pairing(passkey: passkey) }
        return Pairing(passkey: nil)
    }

    /// Runs until the task is cancelled; then leaves the link it holds.
    func run() async {
        let controller = radio.makeController(configuration: .init(address: address))
        var configuration = CentralManager.Configuration()
        configuration.deviceName = "blesensor demo central"
        configuration.clock = clock
        if let pairing {
            var security = SecurityManager.Configuration()
            security.policy.ioCapability = pairing.passkey == nil ? .noInputNoOutput : .keyboardDisplay
            security.policy.minimumKeySize = 7
            configuration.security = SecuritySetup(configuration: security, store: bonds,
                                                   agent: DemoPairingAgent(passkey: pairing.passkey))
        }
        let manager = CentralManager(transport: controller, configuration: configuration, logger: logger)
        do {
            try await manager.start()
        } catch {
            say("cannot start: \(error)", level: .error)
            return
        }
        var events = manager.events.makeAsyncIterator()
        while !Task.isCancelled {
            guard let target = await find(with: manager, events: &events) else { break }
            say("heard \(target.peer), \(target.advertisingData.count) bytes of advertising data, \(target.scanResponseData?.count ?? 0) bytes of scan response")
            do throws(CentralError) {
                let peripheral = try await manager.connect(to: target.peer)
                await serve(peripheral)
            } catch {
                say("\(error)", level: .warning)
            }
            await rest()
        }
        await manager.shutdown()
    }

    /// Scans until the peripheral's name is heard; nil when cancelled or the controller is gone.
    private func find(with manager: CentralManager, events: inout AsyncStream<CentralEvent>.Iterator) async -> Discovery? {
        do throws(CentralError) {
            try await manager.scanForPeripherals()
        } catch {
            say("cannot scan: \(error)", level: .error)
            return nil
        }
        defer { Task { await manager.stopScan() } }
        while let event = await events.next() {
            if case let .discovered(report) = event, advertisesName(report) {
                await manager.stopScan()
                return report
            }
        }
        return nil
    }

    /// One connection: set up, then print updates until the link drops or the task is cancelled.
    private func serve(_ peripheral: RemotePeripheral) async {
        do throws(DemoFailure) {
            let mtu = try await step { () async throws(GATTClientError) in try await peripheral.exchangeMTU() }
            say("connected to \(peripheral.address), ATT MTU \(mtu)")
            if pairing != nil { await secure(peripheral) }
            let services = try await discoverTree(of: peripheral)
            let characteristics = services.flatMap(\.characteristics)
            for entry in characteristics { try await readValues(of: entry, on: peripheral) }
            for entry in characteristics where !entry.characteristic.properties.isDisjoint(with: [.notify, .indicate]) {
                try await subscribe(to: entry.characteristic, on: peripheral)
            }
            let byHandle = Dictionary(characteristics.map { ($0.characteristic.valueHandle, $0.characteristic) }, uniquingKeysWith: { first, _ in first })
            for await update in peripheral.updates {
                say(updateLine(update, byHandle[update.valueHandle]))
            }
        } catch where !Task.isCancelled && peripheral.isConnected {
            say("\(error.message); disconnecting", level: .warning)
        } catch {
            // Cancelled or dropped: handled below.
        }
        if Task.isCancelled {
            await peripheral.disconnect()
            say("stopped; left \(peripheral.address)")
            return
        }
        await peripheral.disconnect()
        let reason = await peripheral.disconnection()
        say("link to \(peripheral.address) down (\(reason)); starting over in \(pause)", level: .warning)
    }

    /// Encrypts with the bond from an earlier connection, as a phone does; pairs when there is none
    /// or the peripheral lost its half.
    private func secure(_ peripheral: RemotePeripheral) async {
        do {
            let security = try await peripheral.encrypt()
            say("encrypted with the stored bond (\(security.keySize)-octet key)")
            return
        } catch .security(.notBonded) {
            // First meeting: pair below.
        } catch {
            say("encrypting with the stored bond failed: \(error); pairing again", level: .warning)
        }
        guard peripheral.isConnected else { return }
        do {
            let result = try await peripheral.pair()
            say("paired (\(result.method), \(result.keySize)-octet key)")
        } catch {
            say("pairing failed: \(error); reads and subscriptions that need encryption will fail", level: .warning)
        }
    }

    /// A service with its characteristics, each with its descriptors.
    struct ServiceEntry { var service: RemoteService; var characteristics: [CharacteristicEntry] }
    struct CharacteristicEntry { var characteristic: RemoteCharacteristic; var descriptors: [RemoteDescriptor] }

    private func discoverTree(of peripheral: RemotePeripheral) async throws(DemoFailure) -> [ServiceEntry] {
        let services = try await step { () async throws(GATTClientError) in try await peripheral.discoverServices() }
        var tree: [ServiceEntry] = []
        for service in services {
            let characteristics = try await step { () async throws(GATTClientError) in try await peripheral.discoverCharacteristics(of: service) }
            var entries: [CharacteristicEntry] = []
            for characteristic in characteristics {
                let descriptors = try await step { () async throws(GATTClientError) in try await peripheral.discoverDescriptors(of: characteristic) }
                entries.append(CharacteristicEntry(characteristic: characteristic, descriptors: descriptors))
            }
            tree.append(ServiceEntry(service: service, characteristics: entries))
        }
        say("found \(tree.count) service(s), \(tree.reduce(0) { $0 + $1.characteristics.count }) characteristic(s)")
        for entry in tree {
            say("service \(AttributeText.label(entry.service.uuid)), handles \(entry.service.handles.lowerBound.hexLiteral)-\(entry.service.handles.upperBound.hexLiteral)")
            for characteristic in entry.characteristics {
                let descriptors = characteristic.descriptors.map { AttributeText.label($0.uuid) }
                say("  characteristic \(AttributeText.label(characteristic.characteristic.uuid)), value handle \(characteristic.characteristic.valueHandle.hexLiteral), "
                    + "\(AttributeText.properties(characteristic.characteristic.properties))"
                    + (descriptors.isEmpty ? "" : "; descriptors: \(descriptors.joined(separator: ", "))"))
            }
        }
        return tree
    }

    /// Reads the value (when readable) and the descriptors worth showing; an attribute that refuses
    /// is logged and skipped, only a broken bearer ends the session.
    private func readValues(of entry: CharacteristicEntry, on peripheral: RemotePeripheral) async throws(DemoFailure) {
        let characteristic = entry.characteristic
        let name = AttributeText.label(characteristic.uuid)
        if characteristic.properties.contains(.read) {
            do {
                let value = try await peripheral.readValue(of: characteristic)
                say("read \(name): \(AttributeText.value(value, of: characteristic.uuid))")
            } catch where !DemoFailure.endsSession(error) {
                say("read \(name) failed: \(error)", level: .warning)
            } catch {
                throw DemoFailure(error)
            }
        }
        for descriptor in entry.descriptors where Self.shownDescriptors.contains(descriptor.uuid) {
            let descriptorName = "\(name) / \(AttributeText.label(descriptor.uuid))"
            do {
                let value = try await peripheral.readValue(of: descriptor)
                say("read \(descriptorName): \(AttributeText.value(value, of: descriptor.uuid, characteristic: characteristic.uuid))")
            } catch where !DemoFailure.endsSession(error) {
                say("read \(descriptorName) failed: \(error)", level: .warning)
            } catch {
                throw DemoFailure(error)
            }
        }
    }

    /// Descriptors that describe the value (user description, format, ES settings); the CCCD is ours to write.
    private static let shownDescriptors = Set([0x2901, 0x2904, 0x2906, 0x290B, 0x290C, 0x290D].map { BluetoothUUID(UInt16($0)) })

    private func subscribe(to characteristic: RemoteCharacteristic, on peripheral: RemotePeripheral) async throws(DemoFailure) {
        let name = AttributeText.label(characteristic.uuid)
        do {
            try await peripheral.setNotifyValue(true, for: characteristic)
            let kind = characteristic.properties.contains(.notify) ? "notifications" : "indications"
            say("subscribed to \(name) (\(kind))")
        } catch where !DemoFailure.endsSession(error) {
            say("subscribing to \(name) failed: \(error)", level: .warning)
        } catch {
            throw DemoFailure(error)
        }
    }

    private func step<T>(_ body: () async throws(GATTClientError) -> T) async throws(DemoFailure) -> T {
        do { return try await body() } catch { throw DemoFailure(error) }
    }

    private func updateLine(_ update: ValueUpdate, _ characteristic: RemoteCharacteristic?) -> String {
        guard let characteristic else { return "handle \(update.valueHandle.hexLiteral): \(AttributeText.hex(update.value))" }
        return "\(AttributeText.label(characteristic.uuid)): \(AttributeText.value(update.value, of: characteristic.uuid))"
    }

    private func say(_ line: String, level: Logger.Level = .info) {
        logger.log(level: level, "demo central: \(line)")
        report("demo central: \(line)")
    }

    private func rest() async {
        try? await clock.sleep(for: pause)
    }

    private func advertisesName(_ report: Discovery) -> Bool {
        guard let name = report.advertisement.localName else { return false }
        return report.advertisement.isLocalNameComplete ? name == peripheralName : peripheralName.hasPrefix(name)
    }
}

/// A GATT failure that ends the demo central's session (the bearer is gone), with its message.
struct DemoFailure: Error {
    let message: String
    init(_ error: GATTClientError) { message = "\(error)" }

    /// An attribute that refuses is skipped; a dead link or bearer ends the session.
    static func endsSession(_ error: GATTClientError) -> Bool {
        switch error {
        case .attError, .notPermitted, .invalidHandle, .valueTooLong: return false
        default: return true
        }
    }
}

/// The demo central's user: types the daemon's fixed passkey, accepts comparisons without looking.
struct DemoPairingAgent: PairingAgent {
    let passkey: UInt32?
    func mayPair(_ link: Link, request: PairingFeatures) async -> PairingDecision { .allow }
    func display(passkey: UInt32, on link: Link) async {}
    func enterPasskey(on link: Link) async -> UInt32? { passkey }
    func confirm(numericComparison value: UInt32, on link: Link) async -> ComparisonAnswer { .acceptedWithoutComparing }
}
