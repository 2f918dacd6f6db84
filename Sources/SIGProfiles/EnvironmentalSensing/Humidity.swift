/// Humidity 0x2A6F (GATT Specification Supplement): uint16 in 0.01 %; 0xFFFF = value not known.
public struct Humidity: Hashable, Sendable {
    public static let uuid: UInt16 = 0x2A6F
    static let unknownCode = UInt16.max
    static let maximumCode: UInt16 = 10000

    public let rawValue: UInt16

    public static let unknown = Humidity(validatedRaw: unknownCode)

    init(validatedRaw: UInt16) { rawValue = validatedRaw }

    /// Rounds to 0.01 %.
    public init(percent: Double) throws(SIGEncodingError) {
        let code = (percent * 100).rounded(.toNearestOrAwayFromZero)
        guard code.isFinite, code >= 0, code <= Double(Self.maximumCode) else {
            throw .outOfRange(field: "humidity", value: "\(percent) %", allowed: "0...100 %")
        }
        rawValue = UInt16(code)
    }

    public init(decoding bytes: [UInt8]) throws(SIGDecodingError) {
        try requireLength(bytes, 2, value: "Humidity")
        var reader = FieldReader(bytes)
        try self.init(reading: &reader, field: "humidity")
    }

    init(reading reader: inout FieldReader, field: String) throws(SIGDecodingError) {
        let code = try reader.uint16(field)
        guard code == Self.unknownCode || code <= Self.maximumCode else {
            throw .outOfRange(field: field, value: decimalText(mantissa: Int64(code), exponent: -2) + " %",
                              allowed: "0...100 %, or 0xFFFF for not known")
        }
        rawValue = code
    }

    /// `nil` when the sensor reports "value not known".
    public var percent: Double? { rawValue == Self.unknownCode ? nil : Double(rawValue) / 100 }

    public var encoded: [UInt8] { [UInt8(truncatingIfNeeded: rawValue), UInt8(truncatingIfNeeded: rawValue >> 8)] }

    var text: String {
        rawValue == Self.unknownCode ? "value not known" : decimalText(mantissa: Int64(rawValue), exponent: -2) + " %"
    }

    var json: JSONValue { percent.map(JSONValue.double) ?? .null }
}

extension Humidity: DescribableValue {
    public var fields: [DescribedField] {
        [DescribedField("humidity_percent", "Humidity", text, json),
         DescribedField("known", "Known", percent == nil ? "no" : "yes", .bool(percent != nil))]
    }
}
