import BLECore

/// A command packet split into opcode and raw parameters; how a controller (real or virtual) sees it.
public struct HCICommandPacket: Sendable, Equatable {
    public var opcode: HCIOpcode
    public var parameters: [UInt8]

    public init(opcode: HCIOpcode, parameters: [UInt8]) {
        self.opcode = opcode
        self.parameters = parameters
    }

    /// Decodes a command packet body (without the H4 indicator), checking the length field.
    public init(body: ArraySlice<UInt8>) throws(HCIDecodingError) {
        var reader = ByteReader(body)
        let (opcode, length) = try reader.decoding("command header") { r throws(ByteReaderError) in (try r.readUInt16(), try r.readUInt8()) }
        guard reader.remainingCount == Int(length) else {
            throw .unexpectedLength("command 0x\(String(opcode, radix: 16))", expected: Int(length), actual: reader.remainingCount)
        }
        self.init(opcode: HCIOpcode(rawValue: opcode), parameters: reader.readRemaining())
    }

    /// Decodes the parameters as `Command`, requiring the opcode to match and no bytes to be left over.
    public func decode<Command: HCICommand>(_ type: Command.Type) throws(HCIDecodingError) -> Command {
        guard opcode == Command.opcode else { throw .wrongOpcode(expected: Command.opcode, actual: opcode) }
        var reader = ByteReader(parameters)
        let command = try Command(decoding: &reader)
        guard reader.isAtEnd else {
            throw .unexpectedLength("\(Command.opcode)", expected: parameters.count - reader.remainingCount, actual: parameters.count)
        }
        return command
    }
}
