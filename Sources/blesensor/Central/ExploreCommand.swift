import ArgumentParser
import BLECore
import Central
import Foundation
import GATTClient

/// `blesensor explore ADDRESS`: the whole GATT database of a peripheral with its values.
struct ExploreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "explore",
        abstract: "Show a peripheral's services, included services, characteristics and descriptors with their values (SIG values decoded).")

    @Argument(help: "The peripheral's address, XX:XX:XX:XX:XX:XX.")
    var address: String

    @OptionGroup var transport: TransportOptions
    @OptionGroup var connection: ConnectionOptions

    @Flag(help: "Print one JSON object.")
    var json = false

    func run() async throws {
        let session = CentralSession(command: "explore", transport: transport)
        try await session.withPeripheral(address, options: connection) { peripheral, _ throws(CLIFailure) in
            var services: [[String: Any]] = []
            do {
                for service in try await peripheral.discoverServices() {
                    services.append(try await explore(service, on: peripheral))
                }
            } catch {
                throw CLIFailure("discovery failed: \(error)")
            }
            if json {
                CentralOutput.json(["address": peripheral.address.address.description, "mtu": peripheral.mtu, "services": services])
            }
        }
    }

    /// One service as the JSON contract spells it; printed as text on the way unless `--json`.
    private func explore(_ service: RemoteService, on peripheral: RemotePeripheral) async throws(GATTClientError) -> [String: Any] {
        let included = try await peripheral.discoverIncludedServices(of: service)
        text("service \(AttributeText.label(service.uuid)) (handles \(service.handles.lowerBound)-\(service.handles.upperBound))"
             + (included.isEmpty ? "" : ", includes \(included.map { AttributeText.label($0.uuid) }.joined(separator: ", "))"))
        var characteristics: [[String: Any]] = []
        for characteristic in try await peripheral.discoverCharacteristics(of: service) {
            characteristics.append(try await explore(characteristic, on: peripheral))
        }
        return ["uuid": CentralOutput.uuid(service.uuid), "start": Int(service.handles.lowerBound), "end": Int(service.handles.upperBound),
                "primary": service.isPrimary, "includes": included.map { CentralOutput.uuid($0.uuid) },
                "characteristics": characteristics]
    }

    private func explore(_ characteristic: RemoteCharacteristic, on peripheral: RemotePeripheral) async throws(GATTClientError) -> [String: Any] {
        var object: [String: Any] = [
            "uuid": CentralOutput.uuid(characteristic.uuid), "handle": Int(characteristic.declarationHandle),
            "valueHandle": Int(characteristic.valueHandle), "properties": AttributeText.propertyNames(characteristic.properties),
            "value": NSNull(), "decoded": NSNull(), "error": NSNull(),
        ]
        var line = "  characteristic \(AttributeText.label(characteristic.uuid)) [\(AttributeText.properties(characteristic.properties))]"
        if characteristic.properties.contains(.read) {
            do {
                let value = try await peripheral.readValue(of: characteristic)
                let decoded = AttributeText.decodedValue(value, of: characteristic.uuid)
                object["value"] = CentralOutput.hex(value)
                if let decoded { object["decoded"] = decoded }
                line += ": \(decoded ?? AttributeText.hex(value))"
            } catch let .attError(code, _, _) {
                // A refused read is part of the picture (e.g. needs encryption), not the end of it.
                object["error"] = code.nameAndCode
                line += ": not readable (\(code.name))"
            }
        }
        text(line)
        var descriptors: [[String: Any]] = []
        for descriptor in try await peripheral.discoverDescriptors(of: characteristic) {
            var entry: [String: Any] = ["uuid": CentralOutput.uuid(descriptor.uuid), "handle": Int(descriptor.handle), "value": NSNull()]
            var descriptorLine = "    descriptor \(AttributeText.label(descriptor.uuid))"
            do {
                let value = try await peripheral.readValue(of: descriptor)
                entry["value"] = CentralOutput.hex(value)
                descriptorLine += ": \(AttributeText.value(value, of: descriptor.uuid, characteristic: characteristic.uuid))"
            } catch let .attError(code, _, _) {
                descriptorLine += ": not readable (\(code.name))"
            }
            text(descriptorLine)
            descriptors.append(entry)
        }
        object["descriptors"] = descriptors
        return object
    }

    private func text(_ line: String) {
        if !json { CentralOutput.line(line) }
    }
}
