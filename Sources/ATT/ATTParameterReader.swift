import BLECore

/// Reads one PDU's parameters, turning every short read into an error that names the opcode.
struct ATTParameterReader {
    private var reader: ByteReader
    let opcode: ATTOpcode

    init(opcode: ATTOpcode, parameters: ArraySlice<UInt8>) {
        self.opcode = opcode
        self.reader = ByteReader(parameters)
    }

    var remainingCount: Int { reader.remainingCount }

    mutating func uint8() throws(ATTDecodingError) -> UInt8 {
        do { return try reader.readUInt8() } catch { throw .truncated(opcode: opcode, error) }
    }

    mutating func uint16() throws(ATTDecodingError) -> UInt16 {
        do { return try reader.readUInt16() } catch { throw .truncated(opcode: opcode, error) }
    }

    mutating func uint32() throws(ATTDecodingError) -> UInt32 {
        do { return try reader.readUInt32() } catch { throw .truncated(opcode: opcode, error) }
    }

    mutating func uint64() throws(ATTDecodingError) -> UInt64 {
        do { return try reader.readUInt64() } catch { throw .truncated(opcode: opcode, error) }
    }

    mutating func bytes(_ count: Int) throws(ATTDecodingError) -> [UInt8] {
        do { return try reader.readBytes(count) } catch { throw .truncated(opcode: opcode, error) }
    }

    mutating func remaining() -> [UInt8] { reader.readRemaining() }

    /// A 2- or 16-octet UUID filling the rest of the PDU (the only two sizes ATT carries).
    mutating func remainingUUID(field: String) throws(ATTDecodingError) -> BluetoothUUID {
        let count = remainingCount
        guard count == 2 || count == 16, let uuid = BluetoothUUID(littleEndian: remaining()) else {
            throw malformed("\(field) must be a 2- or 16-octet UUID, got \(count) octet(s)")
        }
        return uuid
    }

    /// Fixed-layout PDUs: any octet left over makes the PDU invalid.
    func finish(fixedParameterLength: Int) throws(ATTDecodingError) {
        guard reader.isAtEnd else {
            throw .unexpectedLength(opcode: opcode, expected: 1 + fixedParameterLength,
                                    actual: 1 + fixedParameterLength + remainingCount)
        }
    }

    func malformed(_ reason: String) -> ATTDecodingError {
        .malformed(opcode: opcode, reason: reason)
    }
}

extension ByteWriter {
    mutating func append(_ opcode: ATTOpcode) { append(opcode.rawValue) }
}
