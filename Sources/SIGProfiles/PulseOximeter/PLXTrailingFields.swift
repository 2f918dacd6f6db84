import BLECore

/// The optional fields both PLX measurements end with, in this order: Measurement Status (u16),
/// Device and Sensor Status (u24), Pulse Amplitude Index (SFLOAT). Only their flag bits differ
/// between Spot-check (bits 1–3) and Continuous (bits 2–4).
struct PLXTrailingFields {
    /// Each field's presence bit in its characteristic's flags.
    struct FlagBits {
        let measurementStatus: UInt8
        let deviceAndSensorStatus: UInt8
        let pulseAmplitudeIndex: UInt8
    }

    var measurementStatus: PLXMeasurementStatus?
    var deviceAndSensorStatus: PLXDeviceAndSensorStatus?
    var pulseAmplitudeIndex: IEEE11073SFloat?

    init(measurementStatus: PLXMeasurementStatus?, deviceAndSensorStatus: PLXDeviceAndSensorStatus?,
         pulseAmplitudeIndex: IEEE11073SFloat?) {
        self.measurementStatus = measurementStatus
        self.deviceAndSensorStatus = deviceAndSensorStatus
        self.pulseAmplitudeIndex = pulseAmplitudeIndex
    }

    /// Reads the fields `flags` says are present; `lastField` names the last one read, for the
    /// message about bytes left over.
    init(reading reader: inout FieldReader, flags: UInt8, bits: FlagBits, lastField: inout String) throws(SIGDecodingError) {
        func present(_ mask: UInt8, _ name: String) -> String { "\(name) present (bit \(mask.trailingZeroBitCount))" }
        if flags & bits.measurementStatus != 0 {
            try reader.requireFlagged(2, flag: present(bits.measurementStatus, "measurement status"), field: "measurement status")
            measurementStatus = PLXMeasurementStatus(rawValue: try reader.uint16("measurement status"))
            lastField = "the measurement status"
        }
        if flags & bits.deviceAndSensorStatus != 0 {
            try reader.requireFlagged(3, flag: present(bits.deviceAndSensorStatus, "device and sensor status"),
                                      field: "device and sensor status")
            deviceAndSensorStatus = PLXDeviceAndSensorStatus(rawValue: try reader.uint24("device and sensor status"))
            lastField = "the device and sensor status"
        }
        if flags & bits.pulseAmplitudeIndex != 0 {
            try reader.requireFlagged(2, flag: present(bits.pulseAmplitudeIndex, "pulse amplitude index"), field: "pulse amplitude index")
            pulseAmplitudeIndex = IEEE11073SFloat(rawValue: try reader.uint16("pulse amplitude index (SFLOAT)"))
            lastField = "the pulse amplitude index"
        }
    }

    func flags(_ bits: FlagBits) -> UInt8 {
        (measurementStatus != nil ? bits.measurementStatus : 0) | (deviceAndSensorStatus != nil ? bits.deviceAndSensorStatus : 0)
            | (pulseAmplitudeIndex != nil ? bits.pulseAmplitudeIndex : 0)
    }

    func write(to writer: inout ByteWriter) throws(SIGEncodingError) {
        if let status = measurementStatus { writer.append(status.rawValue) }
        try deviceAndSensorStatus?.write(to: &writer, field: "device and sensor status")
        pulseAmplitudeIndex?.write(to: &writer)
    }
}
