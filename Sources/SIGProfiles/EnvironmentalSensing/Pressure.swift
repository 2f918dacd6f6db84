/// Pressure 0x2A6D (GATT Specification Supplement): uint32 in 0.1 Pa.
public struct Pressure: Hashable, Sendable {
    public static let uuid: UInt16 = 0x2A6D

    public let rawValue: UInt32

    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Rounds to 0.1 Pa.
    public init(pascals: Double) throws(SIGEncodingError) {
        let code = (pascals * 10).rounded(.toNearestOrAwayFromZero)
        guard code.isFinite, code >= 0, code <= Double(UInt32.max) else {
            throw .outOfRange(field: "pressure", value: "\(pascals) Pa", allowed: "0...429496729.5 Pa")
        }
        rawValue = UInt32(code)
    }

    public init(decoding bytes: [UInt8]) throws(SIGDecodingError) {
        try requireLength(bytes, 4, value: "Pressure")
        var reader = FieldReader(bytes)
        self.init(rawValue: try reader.uint32("pressure"))
    }

    public var pascals: Double { Double(rawValue) / 10 }

    public var encoded: [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: rawValue >> (8 * $0)) } }

    var text: String { decimalText(mantissa: Int64(rawValue), exponent: -1) + " Pa" }
}

extension Pressure: DescribableValue {
    public var fields: [DescribedField] {
        [DescribedField("pressure_pa", "Pressure", text, .double(pascals))]
    }
}
