import BLECore

/// IEEE 11073-20601 32-bit FLOAT: 8-bit signed exponent (high byte), 24-bit signed mantissa.
public struct IEEE11073Float: Hashable, Sendable, CustomStringConvertible {
    /// The 16/32 bits as sent; kept as received so re-encoding is byte-exact even for non-canonical codes.
    public let rawValue: UInt32

    public init(_ value: MedicalFloatValue) throws(SIGEncodingError) {
        rawValue = (try MedicalFloatLayout.float.encode(value))
    }

    public init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    public var value: MedicalFloatValue { MedicalFloatLayout.float.decode(UInt32(rawValue)) }

    /// Encodes `number` with up to `fractionDigits` decimal places; fewer when the magnitude needs a
    /// coarser exponent. NaN and infinities map to the special values.
    public init(_ number: Double, fractionDigits: Int) throws(SIGEncodingError) {
        try self.init(MedicalFloatLayout.float.value(for: number, fractionDigits: fractionDigits))
    }

    public static let nan = IEEE11073Float(rawValue: 0x007F_FFFF)
    public static let nres = IEEE11073Float(rawValue: 0x0080_0000)
    public static let positiveInfinity = IEEE11073Float(rawValue: 0x007F_FFFE)
    public static let negativeInfinity = IEEE11073Float(rawValue: 0x0080_0002)
    public static let reserved = IEEE11073Float(rawValue: 0x0080_0001)

    public var doubleValue: Double? { value.doubleValue }

    public func write(to writer: inout ByteWriter) { writer.append(rawValue) }

    public var description: String { value.description }
}
