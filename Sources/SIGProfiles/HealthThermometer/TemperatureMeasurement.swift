import BLECore

/// Temperature Measurement 0x2A1C and Intermediate Temperature 0x2A1E (Health Thermometer Service 3.1, 3.3),
/// which share one layout: flags u8, FLOAT temperature, [Date Time, 7 bytes], [temperature type u8].
public struct TemperatureMeasurement: Hashable, Sendable {
    public static let measurementUUID: UInt16 = 0x2A1C
    public static let intermediateUUID: UInt16 = 0x2A1E

    public enum Unit: Hashable, Sendable {
        case celsius
        case fahrenheit

        public var symbol: String { self == .celsius ? "°C" : "°F" }
    }

    enum Flag {
        static let fahrenheit: UInt8 = 0x01
        static let timeStamp: UInt8 = 0x02
        static let temperatureType: UInt8 = 0x04
    }

    /// A special value (NaN, NRes, ...) here means the thermometer could not measure.
    public var temperature: IEEE11073Float
    public var unit: Unit
    public var timeStamp: DateTime?
    public var temperatureType: TemperatureType?

    public init(temperature: IEEE11073Float, unit: Unit = .celsius, timeStamp: DateTime? = nil,
                temperatureType: TemperatureType? = nil) {
        self.temperature = temperature
        self.unit = unit
        self.timeStamp = timeStamp
        self.temperatureType = temperatureType
    }

    public init(decoding bytes: [UInt8]) throws(SIGDecodingError) {
        var reader = FieldReader(bytes)
        let flags = try reader.uint8("flags")
        unit = flags & Flag.fahrenheit != 0 ? .fahrenheit : .celsius
        temperature = IEEE11073Float(rawValue: try reader.uint32("temperature (FLOAT)"))
        var lastField = "the temperature"
        if flags & Flag.timeStamp != 0 {
            try reader.requireFlagged(DateTime.byteCount, flag: "time stamp present (bit 1)", field: "time stamp")
            timeStamp = try DateTime(reading: &reader)
            lastField = "the time stamp"
        } else {
            timeStamp = nil
        }
        if flags & Flag.temperatureType != 0 {
            try reader.requireFlagged(1, flag: "temperature type present (bit 2)", field: "temperature type")
            temperatureType = try TemperatureType.from(try reader.uint8("temperature type"))
            lastField = "the temperature type"
        } else {
            temperatureType = nil
        }
        try reader.finish(after: lastField)
    }

    public func encoded() throws(SIGEncodingError) -> [UInt8] {
        var flags: UInt8 = unit == .fahrenheit ? Flag.fahrenheit : 0
        if timeStamp != nil { flags |= Flag.timeStamp }
        if temperatureType != nil { flags |= Flag.temperatureType }
        var writer = ByteWriter(capacity: 13)
        writer.append(flags)
        temperature.write(to: &writer)
        try timeStamp?.write(to: &writer)
        if let type = temperatureType { writer.append(type.rawValue) }
        return writer.bytes
    }
}

extension TemperatureMeasurement: DescribableValue {
    public var fields: [DescribedField] {
        let value = temperature.value
        let text = value.isSpecial ? "\(value) — no valid temperature" : "\(value) \(unit.symbol)"
        return [
            DescribedField("temperature", "Temperature", text, value.json),
            DescribedField("unit", "Unit", unit.symbol, .string(unit == .celsius ? "celsius" : "fahrenheit")),
            DescribedField("time_stamp", "Time stamp", timeStamp?.description ?? "not present",
                           timeStamp?.json ?? .null),
            DescribedField("temperature_type", "Temperature type",
                           temperatureType.map { "\($0) (\($0.rawValue))" } ?? "not present",
                           temperatureType.map { .string($0.jsonName) } ?? .null),
        ]
    }
}
