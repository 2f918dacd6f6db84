import ArgumentParser
import BLECore
import Central
import Foundation
import GATTClient

/// `blesensor subscribe ADDRESS UUID`: prints each notified or indicated value as it comes.
struct SubscribeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "subscribe",
        abstract: "Print a characteristic's notifications or indications as they come; SIG values are decoded.",
        discussion: "Ends after --count values, after --duration seconds, on Ctrl-C (exit status 0), or when the link drops (exit status 1).")

    @Argument(help: "The peripheral's address, XX:XX:XX:XX:XX:XX.")
    var address: String

    @Argument(help: "The characteristic's UUID; the first one with it is subscribed to.")
    var uuid: String

    @Option(help: "Stop after this many values.")
    var count: Int?

    @Option(help: "Stop after this many seconds.")
    var duration: Double?

    @Flag(help: "Ask for indications (confirmed) rather than notifications.")
    var indicate = false

    @OptionGroup var transport: TransportOptions
    @OptionGroup var connection: ConnectionOptions

    @Flag(help: "One JSON object per line.")
    var json = false

    func validate() throws {
        if let count, count < 1 { throw ValidationError("--count must be at least 1") }
        if let duration, duration <= 0 { throw ValidationError("--duration must be positive") }
    }

    /// How a subscription session ends.
    enum End: Sendable { case done, linkDropped(String) }

    func run() async throws {
        let session = CentralSession(command: "subscribe", transport: transport)
        try await session.withPeripheral(address, options: connection, interruptIsNormalEnd: true) { peripheral, manager throws(CLIFailure) in
            let uuid = try AttributeLookup.uuid(self.uuid)
            await followServiceChanged(on: peripheral)
            let characteristic = try await subscribe(uuid, on: peripheral)
            // The value handle printed; Service Changed may move it.
            let watched = Locked(characteristic.valueHandle)
            let end = await withTaskGroup(of: End.self) { group in
                group.addTask { await printUpdates(of: peripheral, watching: watched, uuid: uuid) }
                group.addTask { await followServiceChanges(of: peripheral, events: manager.events, watching: watched, uuid: uuid) }
                if let duration {
                    group.addTask {
                        try? await Task.sleep(for: .milliseconds(Int64(duration * 1000)))
                        return .done
                    }
                }
                let first = await group.next() ?? .done
                group.cancelAll()
                return first
            }
            if case let .linkDropped(reason) = end { throw CLIFailure(reason) }
        }
    }

    /// Asks for Service Changed indications, so a database change mid-session is followed rather
    /// than leaving stale handles; a peripheral without the characteristic just never changes.
    private func followServiceChanged(on peripheral: RemotePeripheral) async {
        do {
            guard let gatt = try await peripheral.discoverServices([BluetoothUUID(0x1801)]).first,
                  let changed = try await peripheral.discoverCharacteristics([BluetoothUUID(0x2A05)], of: gatt).first else { return }
            peripheral.gatt.setServiceChangedHandle(changed.valueHandle)
            if changed.properties.contains(.indicate) { try await peripheral.setNotifyValue(true, for: changed) }
        } catch {
            CLIEnvironment.printError("blesensor subscribe: Service Changed not followed: \(error)")
        }
    }

    private func subscribe(_ uuid: BluetoothUUID, on peripheral: RemotePeripheral) async throws(CLIFailure) -> RemoteCharacteristic {
        let characteristic = try await AttributeLookup.characteristic(uuid, on: peripheral)
        let indications = indicate || !characteristic.properties.contains(.notify)
        do { try await peripheral.setNotifyValue(true, for: characteristic, preferIndications: indicate) } catch {
            throw CLIFailure("subscribing to \(CentralOutput.uuid(uuid)) failed: \(error)")
        }
        let kind = indications && characteristic.properties.contains(.indicate) ? "indications" : "notifications"
        if json {
            CentralOutput.json(["event": "subscribed", "uuid": CentralOutput.uuid(uuid), "kind": kind])
        } else {
            CentralOutput.line("subscribed to \(AttributeText.label(uuid)) (\(kind))")
        }
        return characteristic
    }

    private func printUpdates(of peripheral: RemotePeripheral, watching watched: Locked<UInt16>, uuid: BluetoothUUID) async -> End {
        var printed = 0
        for await update in peripheral.updates where update.valueHandle == watched.value {
            let decoded = AttributeText.decodedValue(update.value, of: uuid)
            let kind = update.kind == .indication ? "indication" : "notification"
            if json {
                var fields: [(key: String, value: CentralOutput.FlatJSONValue)] = [
                    ("uuid", .string(CentralOutput.uuid(uuid))), ("kind", .string(kind)), ("value", .string(CentralOutput.hex(update.value))),
                ]
                if let decoded { fields.append(("decoded", .string(decoded))) }
                CentralOutput.flatJSON(fields)
            } else {
                CentralOutput.line("\(AttributeText.label(uuid)): \(decoded ?? AttributeText.hex(update.value))")
            }
            printed += 1
            if let count, printed >= count { return .done }
        }
        if Task.isCancelled { return .done }
        return .linkDropped("the link to \(peripheral.address) dropped (\(await peripheral.disconnection()))")
    }

    /// Service Changed: say so, find the characteristic again and subscribe anew when it still exists.
    private func followServiceChanges(of peripheral: RemotePeripheral, events: AsyncStream<CentralEvent>,
                                      watching watched: Locked<UInt16>, uuid: BluetoothUUID) async -> End {
        for await event in events {
            if case let .disconnected(gone, reason) = event, gone === peripheral {
                return .linkDropped("the link to \(peripheral.address) dropped (\(reason))")
            }
            guard case let .servicesChanged(changed, range) = event, changed === peripheral else { continue }
            if json {
                CentralOutput.json(["event": "servicesChanged", "start": Int(range.lowerBound), "end": Int(range.upperBound)])
            } else {
                CentralOutput.line("the peripheral's services changed in 0x\(String(range.lowerBound, radix: 16))-0x\(String(range.upperBound, radix: 16)); rediscovering")
            }
            do throws(CLIFailure) {
                let characteristic = try await subscribe(uuid, on: peripheral)
                watched.value = characteristic.valueHandle
            } catch {
                return .linkDropped(error.message)
            }
        }
        if Task.isCancelled { return .done }
        return .linkDropped("the controller is gone")
    }
}
