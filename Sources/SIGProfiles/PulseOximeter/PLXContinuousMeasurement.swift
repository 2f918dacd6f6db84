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
        static let trailing = PLXTrailingFields.FlagBits(measurementStatus: measurementStatus, deviceAndSensorStatus: deviceAndSensorStatus,
                                                         pulseAmplitudeIndex: pulseAmplitudeIndex)
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
        let trailing = try PLXTrailingFields(reading: &reader, flags: flags, bits: Flag.trailing, lastField: &lastField)
        measurementStatus = trailing.measurementStatus
        deviceAndSensorStatus = trailing.deviceAndSensorStatus
        pulseAmplitudeIndex = trailing.pulseAmplitudeIndex
        try reader.finish(after: lastField)
    }

    private var trailing: PLXTrailingFields {
        PLXTrailingFields(measurementStatus: measurementStatus, deviceAndSensorStatus: deviceAndSensorStatus,
                          pulseAmplitudeIndex: pulseAmplitudeIndex)
    }

    public func encoded() throws(SIGEncodingError) -> [UInt8] {
        var flags: UInt8 = 0
        if fast != nil { flags |= Flag.fast }
        if slow != nil { flags |= Flag.slow }
        flags |= trailing.flags(Flag.trailing)
        var writer = ByteWriter(capacity: 20)
        writer.append(flags)
        normal.write(to: &writer)
        fast?.write(to: &writer)
        slow?.write(to: &writer)
        try trailing.write(to: &writer)
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
