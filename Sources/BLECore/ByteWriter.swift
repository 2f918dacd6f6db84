/// Appends little-endian fields to a byte buffer, the byte order of every HCI and LE PDU field.
public struct ByteWriter: Sendable {
    public private(set) var bytes: [UInt8]

    public init(capacity: Int = 32) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    public var count: Int { bytes.count }

    public mutating func append(_ value: UInt8) { bytes.append(value) }
    public mutating func append(_ value: Int8) { bytes.append(UInt8(bitPattern: value)) }
    public mutating func append(_ value: UInt16) { appendLittleEndian(UInt64(value), width: 2) }
    public mutating func append(_ value: Int16) { append(UInt16(bitPattern: value)) }
    public mutating func append(_ value: UInt32) { appendLittleEndian(UInt64(value), width: 4) }
    public mutating func append(_ value: UInt64) { appendLittleEndian(value, width: 8) }
    public mutating func appendUInt24(_ value: UInt32) { appendLittleEndian(UInt64(value), width: 3) }
    public mutating func append<S: Sequence>(contentsOf bytes: S) where S.Element == UInt8 {
        self.bytes.append(contentsOf: bytes)
    }

    public mutating func appendLittleEndian(_ value: UInt64, width: Int) {
        for index in 0..<width {
            bytes.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(index))))
        }
    }

    /// Overwrites an already written little-endian 16-bit field, e.g. a length known only at the end.
    public mutating func patchUInt16(_ value: UInt16, at position: Int) {
        guard position >= 0, position + 1 < bytes.count else { return }
        bytes[position] = UInt8(truncatingIfNeeded: value)
        bytes[position + 1] = UInt8(truncatingIfNeeded: value >> 8)
    }
}
