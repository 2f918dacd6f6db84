import BLECore

/// PLX Spot-check Measurement 0x2A5E (Pulse Oximeter Service v1.0.1; GATT Specification Supplement
/// field table): flags u8, SpO2PR-Spot-check (2 SFLOAT), [Timestamp, Date Time 7 bytes],
/// [Measurement Status u16], [Device and Sensor Status u24], [Pulse Amplitude Index SFLOAT].
/// Flags bit 4 says the device clock is not set (the timestamp is then not to be trusted); bits 5–7
/// are reserved and ignored on receipt.
public struct PLXSpotCheckMeasurement: Hashable, Sendable {
    public static let uuid: UInt16 = 0x2A5E

    enum Flag {
        static let timestamp: UInt8 = 0x01
        static let measurementStatus: UInt8 = 0x02
        static let deviceAndSensorStatus: UInt8 = 0x04
        static let pulseAmplitudeIndex: UInt8 = 0x08
        static let trailing = PLXTrailingFields.FlagBits(measurementStatus: measurementStatus, deviceAndSensorStatus: deviceAndSensorStatus,
                                                         pulseAmplitudeIndex: pulseAmplitudeIndex)
        static let deviceClockNotSet: UInt8 = 0x10
    }

    public var spO2PR: PLXSpO2PR
    public var timestamp: DateTime?
    public var deviceClockIsNotSet: Bool
    public var measurementStatus: PLXMeasurementStatus?
    public var deviceAndSensorStatus: PLXDeviceAndSensorStatus?
    /// Percent.
    public var pulseAmplitudeIndex: IEEE11073SFloat?

    public init(spO2PR: PLXSpO2PR, timestamp: DateTime? = nil, deviceClockIsNotSet: Bool = false,
                measurementStatus: PLXMeasurementStatus? = nil, deviceAndSensorStatus: PLXDeviceAndSensorStatus? = nil,
                pulseAmplitudeIndex: IEEE11073SFloat? = nil) {
        self.spO2PR = spO2PR
        self.timestamp = timestamp
        self.deviceClockIsNotSet = deviceClockIsNotSet
        self.measurementStatus = measurementStatus
        self.deviceAndSensorStatus = deviceAndSensorStatus
        self.pulseAmplitudeIndex = pulseAmplitudeIndex
    }

    public init(decoding bytes: [UInt8]) throws(SIGDecodingError) {
        var reader = FieldReader(bytes)
        let flags = try reader.uint8("flags")
        spO2PR = try PLXSpO2PR(reading: &reader, field: "spot-check")
        deviceClockIsNotSet = flags & Flag.deviceClockNotSet != 0
        var lastField = "the spot-check SpO2 and PR"
        if flags & Flag.timestamp != 0 {
            try reader.requireFlagged(DateTime.byteCount, flag: "timestamp present (bit 0)", field: "timestamp")
            timestamp = try DateTime(reading: &reader)
            lastField = "the timestamp"
        } else {
            timestamp = nil
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
        var flags: UInt8 = deviceClockIsNotSet ? Flag.deviceClockNotSet : 0
        if timestamp != nil { flags |= Flag.timestamp }
        flags |= trailing.flags(Flag.trailing)
        var writer = ByteWriter(capacity: 19)
        writer.append(flags)
        spO2PR.write(to: &writer)
        try timestamp?.write(to: &writer)
        try trailing.write(to: &writer)
        return writer.bytes
    }
}

extension PLXSpotCheckMeasurement: DescribableValue {
    public var fields: [DescribedField] {
        var result = spO2PR.fields(key: "spot_check", label: "Spot-check")
        let clockNote = deviceClockIsNotSet ? " (device clock is not set: not a real date)" : ""
        result.append(DescribedField("timestamp", "Timestamp", timestamp.map { $0.description + clockNote } ?? "not present",
                                     timestamp?.json ?? .null))
        result.append(DescribedField("device_clock_not_set", "Device clock not set", deviceClockIsNotSet ? "yes" : "no",
                                     .bool(deviceClockIsNotSet)))
        result += plxOptionalFields(measurementStatus, deviceAndSensorStatus, pulseAmplitudeIndex)
        return result
    }
}

/// The three optional trailing fields both measurements share, described the same way.
func plxOptionalFields(_ status: PLXMeasurementStatus?, _ device: PLXDeviceAndSensorStatus?,
                       _ pai: IEEE11073SFloat?) -> [DescribedField] {
    let statusText = status?.described
    let deviceText = device?.described
    return [
        DescribedField("measurement_status", "Measurement status", statusText?.text ?? "not present", statusText?.json ?? .null),
        DescribedField("device_and_sensor_status", "Device and sensor status", deviceText?.text ?? "not present",
                       deviceText?.json ?? .null),
        DescribedField("pulse_amplitude_index", "Pulse amplitude index",
                       pai.map { plxText($0, unit: "%", missing: "no valid pulse amplitude index") } ?? "not present",
                       pai?.value.json ?? .null),
    ]
}
