/// Why a `ByteReader` could not produce a value.
public enum ByteReaderError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Fewer bytes remained than the field needs.
    case truncated(needed: Int, available: Int, offset: Int)

    public var description: String {
        switch self {
        case let .truncated(needed, available, offset):
            return "truncated data: needed \(needed) byte(s) at offset \(offset), only \(available) left"
        }
    }
}

/// A bounds-checked little-endian reader over bytes from the air or a controller.
/// Every read either returns a value or throws; it never traps, so parsers built on it are total.
/// Reading a slice does not copy it: every received event and PDU is parsed this way.
public struct ByteReader: Sendable {
    /// Keeps its parent's indices: `offset` 0 is at `bytes.startIndex`.
    private let bytes: ArraySlice<UInt8>
    /// Bytes read so far; offsets in errors count from the reader's first byte.
    public private(set) var offset: Int
    private let end: Int

    public init(_ bytes: [UInt8]) {
        self.init(bytes[...])
    }

    public init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        self.offset = 0
        self.end = bytes.count
    }

    public var remainingCount: Int { end - offset }
    public var isAtEnd: Bool { offset >= end }

    private func require(_ count: Int) throws(ByteReaderError) {
        guard count >= 0, remainingCount >= count else {
            throw .truncated(needed: count, available: remainingCount, offset: offset)
        }
    }

    public mutating func readUInt8() throws(ByteReaderError) -> UInt8 {
        try require(1)
        defer { offset += 1 }
        return bytes[bytes.startIndex + offset]
    }

    public mutating func readInt8() throws(ByteReaderError) -> Int8 {
        Int8(bitPattern: try readUInt8())
    }

    public mutating func readUInt16() throws(ByteReaderError) -> UInt16 {
        UInt16(truncatingIfNeeded: try readLittleEndian(width: 2))
    }

    public mutating func readInt16() throws(ByteReaderError) -> Int16 {
        Int16(bitPattern: try readUInt16())
    }

    public mutating func readUInt24() throws(ByteReaderError) -> UInt32 {
        UInt32(truncatingIfNeeded: try readLittleEndian(width: 3))
    }

    public mutating func readUInt32() throws(ByteReaderError) -> UInt32 {
        UInt32(truncatingIfNeeded: try readLittleEndian(width: 4))
    }

    public mutating func readUInt64() throws(ByteReaderError) -> UInt64 {
        try readLittleEndian(width: 8)
    }

    /// Reads an unsigned little-endian integer of `width` bytes (1...8).
    public mutating func readLittleEndian(width: Int) throws(ByteReaderError) -> UInt64 {
        try require(width)
        var value: UInt64 = 0
        for index in 0..<min(width, 8) {
            value |= UInt64(bytes[bytes.startIndex + offset + index]) << (8 * UInt64(index))
        }
        offset += width
        return value
    }

    public mutating func readBytes(_ count: Int) throws(ByteReaderError) -> [UInt8] {
        try require(count)
        defer { offset += count }
        return Array(bytes[(bytes.startIndex + offset)..<(bytes.startIndex + offset + count)])
    }

    /// Everything not read yet.
    public mutating func readRemaining() -> [UInt8] {
        defer { offset = end }
        return Array(bytes[(bytes.startIndex + offset)..<(bytes.startIndex + end)])
    }

    public mutating func skip(_ count: Int) throws(ByteReaderError) {
        try require(count)
        offset += count
    }
}
