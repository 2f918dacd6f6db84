import BLECore

/// PLX Continuous Measurement 0x2A5F (Pulse Oximeter Service v1.0.1; GATT Specification Supplement
/// field table): flags u8, SpO2PR-Normal (2 SFLOAT), [SpO2PR-Fast], [SpO2PR-Slow],
/// [Measurement Status u16], [Device and Sensor Status u24], [Pulse Amplitude Index SFLOAT].
/// Flags bits 5–7 are reserved and ignored on receipt.
public struct PLXContinuousMeasurement: Hashable, Sendable {
    public static let uuid: UInt16 = 0x2A5F

    enum Flag {
        static let fast: UInt8 = 0x01
        static let slow: UInt8 = 0x02
        static let measurementStatus: UInt8 = 0x04
        static let deviceAndSensorStatus: UInt8 = 0x08
        static let pulseAmplitudeIndex: UInt8 = 0x10
    }

    public var normal: PLXSpO2PR
    public var fast: PLXSpO2PR?
    public var slow: PLXSpO2PR?
    public var measurementStatus: PLXMeasurementStatus?
    public var deviceAndSensorStatus: PLXDeviceAndSensorStatus?
    /// Percent.
    public var pulseAmplitudeIndex: IEEE11073SFloat?

    public init(normal: PLXSpO2PR, fast: PLXSpO2PR? = nil, slow: PLXSpO2PR? = nil,
                measurementStatus: PLXMeasurementStatus? = nil, deviceAndSensorStatus: PLXDeviceAndSensorStatus? = nil,
                pulseAmplitudeIndex: IEEE11073SFloat? = nil) {
        self.normal = normal
        self.fast = fast
        self.slow = slow
        self.measurementStatus = measurementStatus
        self.deviceAndSensorStatus = deviceAndSensorStatus
        self.pulseAmplitudeIndex = pulseAmplitudeIndex
    }

    public init(decoding bytes: [UInt8]) throws(SIGDecodingError) {
        var reader = FieldReader(bytes)
        let flags = try reader.uint8("flags")
        normal = try PLXSpO2PR(reading: &reader, field: "normal")
        var lastField = "the normal SpO2 and PR"
        if flags & Flag.fast != 0 {
            try reader.requireFlagged(PLXSpO2PR.byteCount, flag: "SpO2PR-Fast present (bit 0)", field: "SpO2PR-Fast")
            fast = try PLXSpO2PR(reading: &reader, field: "fast")
            lastField = "SpO2PR-Fast"
        } else {
            fast = nil
        }
        if flags & Flag.slow != 0 {
            try reader.requireFlagged(PLXSpO2PR.byteCount, flag: "SpO2PR-Slow present (bit 1)", field: "SpO2PR-Slow")
            slow = try PLXSpO2PR(reading: &reader, field: "slow")
            lastField = "SpO2PR-Slow"
        } else {
            slow = nil
        }
        if flags & Flag.measurementStatus != 0 {
            try reader.requireFlagged(2, flag: "measurement status present (bit 2)", field: "measurement status")
            measurementStatus = PLXMeasurementStatus(rawValue: try reader.uint16("measurement status"))
            lastField = "the measurement status"
        } else {
            measurementStatus = nil
        }
        if flags & Flag.deviceAndSensorStatus != 0 {
            try reader.requireFlagged(3, flag: "device and sensor status present (bit 3)", field: "device and sensor status")
            deviceAndSensorStatus = PLXDeviceAndSensorStatus(rawValue: try reader.uint24("device and sensor status"))
            lastField = "the device and sensor status"
        } else {
            deviceAndSensorStatus = nil
        }
        if flags & Flag.pulseAmplitudeIndex != 0 {
            try reader.requireFlagged(2, flag: "pulse amplitude index present (bit 4)", field: "pulse amplitude index")
            pulseAmplitudeIndex = IEEE11073SFloat(rawValue: try reader.uint16("pulse amplitude index (SFLOAT)"))
            lastField = "the pulse amplitude index"
        } else {
            pulseAmplitudeIndex = nil
        }
        try reader.finish(after: lastField)
    }

    public func encoded() throws(SIGEncodingError) -> [UInt8] {
        var flags: UInt8 = 0
        if fast != nil { flags |= Flag.fast }
        if slow != nil { flags |= Flag.slow }
        if measurementStatus != nil { flags |= Flag.measurementStatus }
        if deviceAndSensorStatus != nil { flags |= Flag.deviceAndSensorStatus }
        if pulseAmplitudeIndex != nil { flags |= Flag.pulseAmplitudeIndex }
        var writer = ByteWriter(capacity: 20)
        writer.append(flags)
        normal.write(to: &writer)
        fast?.write(to: &writer)
        slow?.write(to: &writer)
        if let status = measurementStatus { writer.append(status.rawValue) }
        try deviceAndSensorStatus?.write(to: &writer, field: "device and sensor status")
        pulseAmplitudeIndex?.write(to: &writer)
        return writer.bytes
    }
}

extension PLXContinuousMeasurement: DescribableValue {
    public var fields: [DescribedField] {
        var result = normal.fields(key: "normal", label: "Normal")
        for (value, key, label) in [(fast, "fast", "Fast"), (slow, "slow", "Slow")] {
            if let value {
                result += value.fields(key: key, label: label)
            } else {
                result.append(DescribedField(key, "SpO2PR-\(label)", "not present", .null))
            }
        }
        result += plxOptionalFields(measurementStatus, deviceAndSensorStatus, pulseAmplitudeIndex)
        return result
    }
}
