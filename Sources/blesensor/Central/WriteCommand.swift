import ArgumentParser
import BLECore
import Central

/// `blesensor write ADDRESS UUID HEX`: writes a characteristic, with or without response.
struct WriteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "write",
        abstract: "Write bytes to a characteristic of a peripheral (long values through Prepare/Execute Write).")

    @Argument(help: "The peripheral's address, XX:XX:XX:XX:XX:XX.")
    var address: String

    @Argument(help: "The characteristic's UUID; the first one with it is written.")
    var uuid: String

    @Argument(help: "The value in hex: 0102ff, 0x0102ff, 01:02:ff or \"0x01 0x02 0xff\".")
    var value: String

    @Flag(help: "Use Write Command (no response), paced by the link's controller credits.")
    var withoutResponse = false

    @Option(help: "Write the value this many times, in order.")
    var `repeat` = 1

    @OptionGroup var transport: TransportOptions
    @OptionGroup var connection: ConnectionOptions

    @Flag(help: "Print a JSON object.")
    var json = false

    func validate() throws {
        guard Self.bytes(value) != nil else { throw ValidationError("'\(value)' is not hex bytes (e.g. 0x0102ff)") }
        guard (1...1_000_000).contains(`repeat`) else { throw ValidationError("--repeat must be 1...1000000") }
    }

    /// "0102ff", "0x0102ff", "01:02:ff", "0x01 0x02 0xff": every group may have its own 0x.
    static func bytes(_ text: String) -> [UInt8]? {
        let groups = text.split(whereSeparator: { " :_-,".contains($0) }).map { group in
            group.hasPrefix("0x") || group.hasPrefix("0X") ? group.dropFirst(2) : group[...]
        }
        let digits = groups.joined()
        guard !digits.isEmpty || text.isEmpty, digits.count % 2 == 0, digits.allSatisfy(\.isHexDigit) else { return nil }
        var bytes: [UInt8] = []
        var index = digits.startIndex
        while index < digits.endIndex {
            let next = digits.index(index, offsetBy: 2)
            guard let byte = UInt8(digits[index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        return bytes
    }

    func run() async throws {
        let bytes = Self.bytes(value) ?? []
        let session = CentralSession(command: "write", transport: transport)
        try await session.withPeripheral(address, options: connection) { peripheral, _ throws(CLIFailure) in
            let uuid = try AttributeLookup.uuid(self.uuid)
            let characteristic = try await AttributeLookup.characteristic(uuid, on: peripheral)
            do {
                for _ in 0..<`repeat` {
                    if withoutResponse {
                        try await peripheral.writeWithoutResponseWhenReady(bytes, to: characteristic)
                    } else {
                        try await peripheral.writeValue(bytes, to: characteristic)
                    }
                }
                // Write Commands have no answer: a round trip makes sure they all left before we disconnect.
                if withoutResponse { _ = try await peripheral.discoverServices([uuid]) }
            } catch {
                throw CLIFailure("write \(CentralOutput.uuid(uuid)) failed: \(error)")
            }
            if json {
                CentralOutput.json(["uuid": CentralOutput.uuid(uuid), "bytes": bytes.count, "writes": `repeat`])
            } else {
                CentralOutput.line("wrote \(bytes.count) bytes to \(CentralOutput.uuid(uuid))" + (`repeat` > 1 ? " \(`repeat`) times" : ""))
            }
        }
    }
}
