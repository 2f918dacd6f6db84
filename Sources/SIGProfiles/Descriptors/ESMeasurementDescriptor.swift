import BLECore

/// ES Measurement descriptor 0x290C (Environmental Sensing Service 3.1.2.1), 11 bytes: flags u16,
/// sampling function u8, measurement period u24 s, update interval u24 s, application u8,
/// measurement uncertainty u8 (0.5 % steps).
public struct ESMeasurementDescriptor: Hashable, Sendable {
    public static let uuid: UInt16 = 0x290C
    public static let byteCount = 11

    public enum SamplingFunction: UInt8, Hashable, Sendable, CaseIterable {
        case unspecified = 0, instantaneous, arithmeticMean, rms, maximum, minimum, accumulated, count

        var name: String {
            ["Unspecified", "Instantaneous", "Arithmetic Mean", "RMS", "Maximum", "Minimum", "Accumulated",
             "Count"][Int(rawValue)]
        }
    }

    /// Application codes 0x00-0x21 (ESS Table 3.7); later codes are reserved.
    static let applicationNames = [
        "Unspecified", "Air", "Water", "Barometric", "Soil", "Infrared", "Map Database",
        "Barometric Elevation Source", "GPS only Elevation Source", "GPS and Map database Elevation Source",
        "Vertical datum Elevation Source", "Onshore", "Onboard vessel or vehicle", "Front", "Back/Rear",
        "Upper", "Lower", "Primary", "Secondary", "Outdoor", "Indoor", "Top", "Bottom", "Main", "Backup",
        "Auxiliary", "Supplementary", "Inside", "Outside", "Left", "Right", "Internal", "External", "Solar",
    ]

    /// All bits are reserved for future use; kept so re-encoding is byte-exact.
    public var flags: UInt16
    public var samplingFunction: SamplingFunction
    /// Seconds the measurement spans; 0 = not in use.
    public var measurementPeriod: UInt32
    /// Seconds between updates; 0 = not in use.
    public var updateInterval: UInt32
    public var application: UInt8
    /// In units of 0.5 %.
    public var measurementUncertainty: UInt8

    public init(flags: UInt16 = 0, samplingFunction: SamplingFunction, measurementPeriod: UInt32, updateInterval: UInt32,
                application: UInt8, measurementUncertainty: UInt8) {
        self.flags = flags
        self.samplingFunction = samplingFunction
        self.measurementPeriod = measurementPeriod
        self.updateInterval = updateInterval
        self.application = application
        self.measurementUncertainty = measurementUncertainty
    }

    public init(decoding bytes: [UInt8]) throws(SIGDecodingError) {
        try requireLength(bytes, Self.byteCount, value: "ES Measurement descriptor")
        var reader = FieldReader(bytes)
        flags = try reader.uint16("flags")
        let sampling = try reader.uint8("sampling function")
        guard let function = SamplingFunction(rawValue: sampling) else {
            throw .reservedValue(field: "sampling function", value: hex(UInt64(sampling), digits: 2), allowed: "0x00-0x07")
        }
        samplingFunction = function
        measurementPeriod = try reader.uint24("measurement period")
        updateInterval = try reader.uint24("update interval")
        application = try reader.uint8("application")
        guard Int(application) < Self.applicationNames.count else {
            throw .reservedValue(field: "application", value: hex(UInt64(application), digits: 2), allowed: "0x00-0x21")
        }
        measurementUncertainty = try reader.uint8("measurement uncertainty")
    }

    public func encoded() throws(SIGEncodingError) -> [UInt8] {
        guard measurementPeriod <= 0xFF_FFFF else {
            throw .outOfRange(field: "measurement period", value: "\(measurementPeriod) s", allowed: "0...16777215 s")
        }
        guard updateInterval <= 0xFF_FFFF else {
            throw .outOfRange(field: "update interval", value: "\(updateInterval) s", allowed: "0...16777215 s")
        }
        guard Int(application) < Self.applicationNames.count else {
            throw .outOfRange(field: "application", value: hex(UInt64(application), digits: 2), allowed: "0x00-0x21")
        }
        var writer = ByteWriter(capacity: Self.byteCount)
        writer.append(flags)
        writer.append(samplingFunction.rawValue)
        writer.appendUInt24(measurementPeriod)
        writer.appendUInt24(updateInterval)
        writer.append(application)
        writer.append(measurementUncertainty)
        return writer.bytes
    }

    public var applicationName: String {
        Int(application) < Self.applicationNames.count ? Self.applicationNames[Int(application)] : "Reserved"
    }
}

extension ESMeasurementDescriptor: DescribableValue {
    public var fields: [DescribedField] {
        func seconds(_ value: UInt32) -> String { value == 0 ? "not in use" : "\(value) s" }
        return [
            DescribedField("flags", "Flags", hex(UInt64(flags), digits: 4), .int(Int(flags))),
            DescribedField("sampling_function", "Sampling function", samplingFunction.name,
                           .string(snakeName(samplingFunction.name))),
            DescribedField("measurement_period_s", "Measurement period", seconds(measurementPeriod), .int(Int(measurementPeriod))),
            DescribedField("update_interval_s", "Update interval", seconds(updateInterval), .int(Int(updateInterval))),
            DescribedField("application", "Application", "\(applicationName) (\(hex(UInt64(application), digits: 2)))",
                           .string(snakeName(applicationName))),
            DescribedField("measurement_uncertainty_percent", "Measurement uncertainty",
                           decimalText(mantissa: Int64(measurementUncertainty) * 5, exponent: -1) + " %",
                           .double(Double(measurementUncertainty) / 2)),
        ]
    }
}
