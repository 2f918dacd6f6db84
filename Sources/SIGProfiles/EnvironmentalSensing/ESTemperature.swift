/// Temperature 0x2A6E (GATT Specification Supplement): sint16 in 0.01 °C; 0x8000 = value not known.
public struct ESTemperature: Hashable, Sendable {
    public static let uuid: UInt16 = 0x2A6E
    static let unknownCode = Int16.min
    /// −273.15 °C: lower codes would be below absolute zero, which no sensor can report truthfully.
    static let minimumCode: Int16 = -27315

    public let rawValue: Int16

    public static let unknown = ESTemperature(validatedRaw: unknownCode)

    init(validatedRaw: Int16) { rawValue = validatedRaw }

    /// Rounds to 0.01 °C.
    public init(celsius: Double) throws(SIGEncodingError) {
        let code = (celsius * 100).rounded(.toNearestOrAwayFromZero)
        guard code.isFinite, code >= Double(Self.minimumCode), code <= Double(Int16.max) else {
            throw .outOfRange(field: "temperature", value: "\(celsius) °C", allowed: "-273.15...327.67 °C")
        }
        rawValue = Int16(code)
    }

    public init(decoding bytes: [UInt8]) throws(SIGDecodingError) {
        try requireLength(bytes, 2, value: "Temperature")
        var reader = FieldReader(bytes)
        try self.init(reading: &reader, field: "temperature")
    }

    init(reading reader: inout FieldReader, field: String) throws(SIGDecodingError) {
        let code = try reader.int16(field)
        guard code == Self.unknownCode || code >= Self.minimumCode else {
            throw .outOfRange(field: field, value: decimalText(mantissa: Int64(code), exponent: -2) + " °C",
                              allowed: "-273.15...327.67 °C, or 0x8000 for not known")
        }
        rawValue = code
    }

    /// `nil` when the sensor reports "value not known".
    public var celsius: Double? { rawValue == Self.unknownCode ? nil : Double(rawValue) / 100 }

    public var encoded: [UInt8] { [UInt8(truncatingIfNeeded: rawValue), UInt8(truncatingIfNeeded: rawValue >> 8)] }

    var text: String {
        rawValue == Self.unknownCode ? "value not known" : decimalText(mantissa: Int64(rawValue), exponent: -2) + " °C"
    }

    var json: JSONValue { celsius.map(JSONValue.double) ?? .null }
}

extension ESTemperature: DescribableValue {
    public var fields: [DescribedField] {
        [DescribedField("temperature_c", "Temperature", text, json),
         DescribedField("known", "Known", celsius == nil ? "no" : "yes", .bool(celsius != nil))]
    }
}
