import ArgumentParser
import BLECore
import Central

/// `blesensor read ADDRESS UUID`: one characteristic's value, decoded when it is a SIG value.
struct ReadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "read",
        abstract: "Read a characteristic of a peripheral (long values in full); SIG values are decoded.")

    @Argument(help: "The peripheral's address, XX:XX:XX:XX:XX:XX.")
    var address: String

    @Argument(help: "The characteristic's UUID (2A19, or a 128-bit UUID); the first one with it is read.")
    var uuid: String

    @OptionGroup var transport: TransportOptions
    @OptionGroup var connection: ConnectionOptions

    @Flag(help: "Print a JSON object.")
    var json = false

    func run() async throws {
        let session = CentralSession(command: "read", transport: transport)
        try await session.withPeripheral(address, options: connection) { peripheral, _ throws(CLIFailure) in
            let uuid = try AttributeLookup.uuid(self.uuid)
            let characteristic = try await AttributeLookup.characteristic(uuid, on: peripheral)
            let value: [UInt8]
            do { value = try await peripheral.readValue(of: characteristic) } catch {
                throw CLIFailure("read \(CentralOutput.uuid(uuid)) failed: \(error)")
            }
            let decoded = AttributeText.decodedValue(value, of: uuid)
            if json {
                var object: [String: Any] = ["uuid": CentralOutput.uuid(uuid), "handle": Int(characteristic.valueHandle),
                                             "value": CentralOutput.hex(value)]
                if let decoded { object["decoded"] = decoded }
                CentralOutput.json(object)
            } else {
                CentralOutput.line("\(AttributeText.label(uuid)): \(decoded ?? AttributeText.hex(value))")
            }
        }
    }
}
