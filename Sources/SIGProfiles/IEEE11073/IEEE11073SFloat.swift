import BLECore

/// IEEE 11073-20601 16-bit SFLOAT: 4-bit signed exponent (high nibble), 12-bit signed mantissa.
public struct IEEE11073SFloat: Hashable, Sendable, CustomStringConvertible {
    /// The 16/32 bits as sent; kept as received so re-encoding is byte-exact even for non-canonical codes.
    public let rawValue: UInt16

    public init(_ value: MedicalFloatValue) throws(SIGEncodingError) {
        rawValue = UInt16(truncatingIfNeeded: try MedicalFloatLayout.sfloat.encode(value))
    }

    public init(rawValue: UInt16) {
        self.rawValue = rawValue
    }

    public var value: MedicalFloatValue { MedicalFloatLayout.sfloat.decode(UInt32(rawValue)) }

    /// Encodes `number` with up to `fractionDigits` decimal places; fewer when the magnitude needs a
    /// coarser exponent. NaN and infinities map to the special values.
    public init(_ number: Double, fractionDigits: Int) throws(SIGEncodingError) {
        try self.init(MedicalFloatLayout.sfloat.value(for: number, fractionDigits: fractionDigits))
    }

    public static let nan = IEEE11073SFloat(rawValue: 0x07FF)
    public static let nres = IEEE11073SFloat(rawValue: 0x0800)
    public static let positiveInfinity = IEEE11073SFloat(rawValue: 0x07FE)
    public static let negativeInfinity = IEEE11073SFloat(rawValue: 0x0802)
    public static let reserved = IEEE11073SFloat(rawValue: 0x0801)

    public var doubleValue: Double? { value.doubleValue }

    public func write(to writer: inout ByteWriter) { writer.append(rawValue) }

    public var description: String { value.description }
}
