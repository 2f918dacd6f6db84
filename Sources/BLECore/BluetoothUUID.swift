/// A Bluetooth UUID. Stored as 128 bits; 16- and 32-bit forms are aliases within the Bluetooth base UUID
/// 0000xxxx-0000-1000-8000-00805F9B34FB (Core spec Vol 3 Part B 2.5.1).
public struct BluetoothUUID: Hashable, Sendable, CustomStringConvertible {
    /// Most significant half first, so the value compares like the canonical string.
    public let high: UInt64
    public let low: UInt64

    static let baseHighMask: UInt64 = 0x0000_0000_FFFF_FFFF
    static let baseHigh: UInt64 = 0x0000_0000_0000_1000
    static let baseLow: UInt64 = 0x8000_0080_5F9B_34FB

    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    public init(_ value16: UInt16) {
        self.init(high: UInt64(value16) << 32 | Self.baseHigh, low: Self.baseLow)
    }

    public init(uint32 value32: UInt32) {
        self.init(high: UInt64(value32) << 32 | Self.baseHigh, low: Self.baseLow)
    }

    /// Accepts `180D`, `0x180D`, `0000180D` or the full 36-character form.
    public init?(_ text: String) {
        var body = Substring(text)
        if body.hasPrefix("0x") || body.hasPrefix("0X") { body = body.dropFirst(2) }
        switch body.count {
        case 4:
            guard let value = UInt16(body, radix: 16) else { return nil }
            self.init(value)
        case 8:
            guard let value = UInt32(body, radix: 16) else { return nil }
            self.init(uint32: value)
        case 36:
            let groups = body.split(separator: "-", omittingEmptySubsequences: false)
            guard groups.map(\.count) == [8, 4, 4, 4, 12] else { return nil }
            let digits = groups.joined()
            guard let high = UInt64(digits.prefix(16), radix: 16),
                  let low = UInt64(digits.suffix(16), radix: 16) else { return nil }
            self.init(high: high, low: low)
        default:
            return nil
        }
    }

    /// Decodes the little-endian wire form of 2, 4 or 16 bytes.
    public init?(littleEndian bytes: [UInt8]) {
        var reader = ByteReader(bytes)
        switch bytes.count {
        case 2: guard let value = try? reader.readUInt16() else { return nil }; self.init(value)
        case 4: guard let value = try? reader.readUInt32() else { return nil }; self.init(uint32: value)
        case 16:
            guard let low = try? reader.readUInt64(), let high = try? reader.readUInt64() else { return nil }
            self.init(high: high, low: low)
        default: return nil
        }
    }

    private var isInBase: Bool { low == Self.baseLow && high & Self.baseHighMask == Self.baseHigh }

    /// The 16-bit alias when the UUID has one.
    public var uint16: UInt16? {
        guard isInBase, high >> 48 == 0 else { return nil }
        return UInt16(truncatingIfNeeded: high >> 32)
    }

    /// The 32-bit alias when the UUID has one (every 16-bit UUID has one too).
    public var uint32: UInt32? {
        guard isInBase else { return nil }
        return UInt32(truncatingIfNeeded: high >> 32)
    }

    /// The shortest wire form: 2 bytes for 16-bit aliases, else 16 (ATT never carries the 32-bit form).
    public var shortestLittleEndian: [UInt8] {
        if let value = uint16 { return [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8)] }
        return littleEndian128
    }

    public var littleEndian32: [UInt8]? {
        guard let value = uint32 else { return nil }
        var writer = ByteWriter(capacity: 4)
        writer.append(value)
        return writer.bytes
    }

    public var littleEndian128: [UInt8] {
        var writer = ByteWriter(capacity: 16)
        writer.append(low)
        writer.append(high)
        return writer.bytes
    }

    public var description: String {
        if let value = uint16 { return Self.hex(UInt64(value), digits: 4) }
        let h = Self.hex(high, digits: 16), l = Self.hex(low, digits: 16)
        return "\(h.prefix(8))-\(h.dropFirst(8).prefix(4))-\(h.suffix(4))-\(l.prefix(4))-\(l.suffix(12))"
    }

    private static func hex(_ value: UInt64, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
