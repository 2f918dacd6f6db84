import BLECore

/// A `ByteReader` that names each field, so a short value becomes a `SIGDecodingError`
/// saying which field was cut off rather than a bare offset.
struct FieldReader {
    private var reader: ByteReader

    init(_ bytes: [UInt8]) { reader = ByteReader(bytes) }

    var remainingCount: Int { reader.remainingCount }
    var isAtEnd: Bool { reader.isAtEnd }

    mutating func uint8(_ field: String) throws(SIGDecodingError) -> UInt8 {
        try read(1, field) { (r: inout ByteReader) throws(ByteReaderError) in try r.readUInt8() }
    }

    mutating func int8(_ field: String) throws(SIGDecodingError) -> Int8 {
        Int8(bitPattern: try uint8(field))
    }

    mutating func uint16(_ field: String) throws(SIGDecodingError) -> UInt16 {
        try read(2, field) { (r: inout ByteReader) throws(ByteReaderError) in try r.readUInt16() }
    }

    mutating func int16(_ field: String) throws(SIGDecodingError) -> Int16 {
        Int16(bitPattern: try uint16(field))
    }

    mutating func uint24(_ field: String) throws(SIGDecodingError) -> UInt32 {
        try read(3, field) { (r: inout ByteReader) throws(ByteReaderError) in try r.readUInt24() }
    }

    mutating func uint32(_ field: String) throws(SIGDecodingError) -> UInt32 {
        try read(4, field) { (r: inout ByteReader) throws(ByteReaderError) in try r.readUInt32() }
    }

    mutating func remaining() -> [UInt8] { reader.readRemaining() }

    /// Checks that a field the flags announce is present in full.
    func requireFlagged(_ count: Int, flag: String, field: String) throws(SIGDecodingError) {
        guard remainingCount >= count else {
            throw .flaggedFieldMissing(flag: flag, field: field, needed: count, available: remainingCount)
        }
    }

    /// Rejects bytes left over after the last defined field.
    func finish(after field: String) throws(SIGDecodingError) {
        guard isAtEnd else { throw .trailingBytes(count: remainingCount, after: field) }
    }

    private mutating func read<T>(
        _ count: Int, _ field: String, _ body: (inout ByteReader) throws(ByteReaderError) -> T
    ) throws(SIGDecodingError) -> T {
        do {
            return try body(&reader)
        } catch {
            throw .truncated(field: field, needed: count, available: reader.remainingCount)
        }
    }
}

/// Checks that a fixed-size value has exactly its defined length before field-by-field decoding.
func requireLength(_ bytes: [UInt8], _ expected: Int, value: String) throws(SIGDecodingError) {
    guard bytes.count == expected else {
        throw .wrongLength(value: value, expected: expected, actual: bytes.count)
    }
}
