import ArgumentParser
import BLECore
import SIGProfiles

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `blesensor decode UUID HEX [--json]`: decodes a characteristic or descriptor value copied from a
/// sniffer or another tool, to check what a sensor really sends.
public struct DecodeCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "decode",
        abstract: "Decode a Bluetooth SIG characteristic or descriptor value.",
        discussion: "Supported UUIDs:\n" + SIGAttribute.supportedList.joined(separator: "\n"))

    @Argument(help: "16-bit UUID of the characteristic or descriptor, e.g. 2A37 or 0x2A37.")
    public var uuid: String

    @Argument(help: "The value as hex (may be empty); spaces and colons are allowed, e.g. \"16 48 00 04\" or 16:48:00:04.")
    public var hex: [String] = []

    @Option(name: .long, help: "Characteristic UUID a Valid Range (2906) or ES Trigger Setting (290D) belongs to.")
    public var characteristic: String?

    @Flag(name: .long, help: "Print JSON instead of text.")
    public var json = false

    public init() {}

    /// What a run prints, kept apart from the process so tests can check it in-process.
    public struct Output: Equatable, Sendable {
        public var standardOutput: String
        public var standardError: String
        public var exitCode: Int32
    }

    public func render() -> Output {
        guard let uuidValue = BluetoothUUID(uuid) else {
            return failure("'\(uuid)' is not a UUID; give a 16-bit UUID such as 2A37 or 0x2A37")
        }
        var context: BluetoothUUID?
        if let characteristic {
            guard let parsed = BluetoothUUID(characteristic) else {
                return failure("--characteristic '\(characteristic)' is not a UUID; give e.g. 2A6E")
            }
            context = parsed
        }
        let bytes: [UInt8]
        do {
            bytes = try [UInt8](hex: hex.joined(separator: " "))
        } catch {
            return failure("the value is not valid hex: \(error)")
        }
        do {
            let decoded = try SIGDecoder.decode(uuid: uuidValue, bytes: bytes, characteristic: context)
            let text = json ? decoded.json.jsonText() : decoded.description
            return Output(standardOutput: text + "\n", standardError: "", exitCode: 0)
        } catch {
            if case .unsupportedUUID = error {
                let shown = uuidValue.uint16 == nil ? uuidValue.description : "0x\(uuidValue)"
                return failure("no decoder for UUID \(shown); supported UUIDs:\n"
                    + SIGAttribute.supportedList.map { "  " + $0 }.joined(separator: "\n"))
            }
            let name = SIGAttribute(rawValue: uuidValue.uint16 ?? 0)?.name ?? uuidValue.description
            return failure("malformed \(name) value \(bytes.hexString.uppercased()): \(error)")
        }
    }

    public func run() throws {
        let output = render()
        if !output.standardOutput.isEmpty { print(output.standardOutput, terminator: "") }
        if !output.standardError.isEmpty {
            // write(2) on the descriptor: the C `stderr` global is not concurrency-safe in Swift 6.
            var message = output.standardError
            message.withUTF8 { buffer in _ = write(STDERR_FILENO, buffer.baseAddress, buffer.count) }
        }
        if output.exitCode != 0 { throw ExitCode(output.exitCode) }
    }

    private func failure(_ message: String) -> Output {
        Output(standardOutput: "", standardError: "error: " + message + "\n", exitCode: 1)
    }
}
