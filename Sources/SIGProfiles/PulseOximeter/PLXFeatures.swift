import BLECore

/// PLX Features 0x2A60 (Pulse Oximeter Service v1.0.1; GATT Specification Supplement field table):
/// Supported Features u16, then Measurement Status Support u16 if bit 0 is set, then Device and
/// Sensor Status Support u24 if bit 1 is set. Bits 8–15 of Supported Features are reserved.
public struct PLXFeatures: Hashable, Sendable {
    public static let uuid: UInt16 = 0x2A60

    public struct Supported: OptionSet, Hashable, Sendable {
        public let rawValue: UInt16
        public init(rawValue: UInt16) { self.rawValue = rawValue }

        public static let measurementStatus = Self(rawValue: 1 << 0)
        public static let deviceAndSensorStatus = Self(rawValue: 1 << 1)
        public static let measurementStorageForSpotCheck = Self(rawValue: 1 << 2)
        public static let timestampForSpotCheck = Self(rawValue: 1 << 3)
        public static let spO2PRFast = Self(rawValue: 1 << 4)
        public static let spO2PRSlow = Self(rawValue: 1 << 5)
        public static let pulseAmplitudeIndex = Self(rawValue: 1 << 6)
        public static let multipleBonds = Self(rawValue: 1 << 7)

        static let definedBits: [PLXStatusBit] = [
            PLXStatusBit(bit: 0, name: "Measurement Status"),
            PLXStatusBit(bit: 1, name: "Device and Sensor Status"),
            PLXStatusBit(bit: 2, name: "Measurement Storage for Spot-check"),
            PLXStatusBit(bit: 3, name: "Timestamp for Spot-check"),
            PLXStatusBit(bit: 4, name: "SpO2PR-Fast"),
            PLXStatusBit(bit: 5, name: "SpO2PR-Slow"),
            PLXStatusBit(bit: 6, name: "Pulse Amplitude Index"),
            PLXStatusBit(bit: 7, name: "Multiple Bonds"),
        ]
    }

    /// The two support fields are present exactly when Supported Features bits 0 and 1 are set;
    /// the encoder sets those bits from the optionals.
    public var supported: Supported
    public var measurementStatusSupport: PLXMeasurementStatus?
    public var deviceAndSensorStatusSupport: PLXDeviceAndSensorStatus?

    /// `supported` must not carry bits 0–1 itself: they follow from the two support fields.
    public init(supported: Supported, measurementStatusSupport: PLXMeasurementStatus? = nil,
                deviceAndSensorStatusSupport: PLXDeviceAndSensorStatus? = nil) {
        var features = supported.subtracting([.measurementStatus, .deviceAndSensorStatus])
        if measurementStatusSupport != nil { features.insert(.measurementStatus) }
        if deviceAndSensorStatusSupport != nil { features.insert(.deviceAndSensorStatus) }
        self.supported = features
        self.measurementStatusSupport = measurementStatusSupport
        self.deviceAndSensorStatusSupport = deviceAndSensorStatusSupport
    }

    public init(decoding bytes: [UInt8]) throws(SIGDecodingError) {
        var reader = FieldReader(bytes)
        supported = Supported(rawValue: try reader.uint16("supported features"))
        var lastField = "the supported features"
        if supported.contains(.measurementStatus) {
            try reader.requireFlagged(2, flag: "measurement status support present (bit 0)", field: "measurement status support")
            measurementStatusSupport = PLXMeasurementStatus(rawValue: try reader.uint16("measurement status support"))
            lastField = "the measurement status support"
        } else {
            measurementStatusSupport = nil
        }
        if supported.contains(.deviceAndSensorStatus) {
            try reader.requireFlagged(3, flag: "device and sensor status support present (bit 1)",
                                      field: "device and sensor status support")
            deviceAndSensorStatusSupport = PLXDeviceAndSensorStatus(rawValue: try reader.uint24("device and sensor status support"))
            lastField = "the device and sensor status support"
        } else {
            deviceAndSensorStatusSupport = nil
        }
        try reader.finish(after: lastField)
    }

    public func encoded() throws(SIGEncodingError) -> [UInt8] {
        // Bits 0–1 always match the fields written, whatever `supported` was set to.
        var features = supported.subtracting([.measurementStatus, .deviceAndSensorStatus])
        if measurementStatusSupport != nil { features.insert(.measurementStatus) }
        if deviceAndSensorStatusSupport != nil { features.insert(.deviceAndSensorStatus) }
        var writer = ByteWriter(capacity: 7)
        writer.append(features.rawValue)
        if let support = measurementStatusSupport { writer.append(support.rawValue) }
        try deviceAndSensorStatusSupport?.write(to: &writer, field: "device and sensor status support")
        return writer.bytes
    }
}

extension PLXFeatures: DescribableValue {
    public var fields: [DescribedField] {
        let features = describeBits(UInt32(supported.rawValue), Supported.definedBits, digits: 4)
        let status = measurementStatusSupport?.described
        let device = deviceAndSensorStatusSupport?.described
        return [
            DescribedField("supported_features", "Supported features", features.text, features.json),
            DescribedField("measurement_status_support", "Measurement status support", status?.text ?? "not present",
                           status?.json ?? .null),
            DescribedField("device_and_sensor_status_support", "Device and sensor status support", device?.text ?? "not present",
                           device?.json ?? .null),
        ]
    }
}
