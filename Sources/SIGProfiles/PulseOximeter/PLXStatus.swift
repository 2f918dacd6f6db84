import BLECore

/// A named bit of a PLX status or support field.
public struct PLXStatusBit: Hashable, Sendable {
    public let bit: Int
    public let name: String
}

/// Measurement Status (16 bit) of PLX Spot-check and Continuous Measurement, and the Measurement
/// Status Support field of PLX Features (Pulse Oximeter Service v1.0.1, and GATT Specification
/// Supplement "Measurement Status"): bits 0–4 are reserved, bits 5–15 are defined below.
public struct PLXMeasurementStatus: OptionSet, Hashable, Sendable {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let measurementOngoing = Self(rawValue: 1 << 5)
    public static let earlyEstimatedData = Self(rawValue: 1 << 6)
    public static let validatedData = Self(rawValue: 1 << 7)
    public static let fullyQualifiedData = Self(rawValue: 1 << 8)
    public static let dataFromMeasurementStorage = Self(rawValue: 1 << 9)
    public static let dataForDemonstration = Self(rawValue: 1 << 10)
    public static let dataForTesting = Self(rawValue: 1 << 11)
    public static let calibrationOngoing = Self(rawValue: 1 << 12)
    public static let measurementUnavailable = Self(rawValue: 1 << 13)
    public static let questionableMeasurementDetected = Self(rawValue: 1 << 14)
    public static let invalidMeasurementDetected = Self(rawValue: 1 << 15)

    static let definedBits: [PLXStatusBit] = [
        PLXStatusBit(bit: 5, name: "Measurement Ongoing"),
        PLXStatusBit(bit: 6, name: "Early Estimated Data"),
        PLXStatusBit(bit: 7, name: "Validated Data"),
        PLXStatusBit(bit: 8, name: "Fully Qualified Data"),
        PLXStatusBit(bit: 9, name: "Data from Measurement Storage"),
        PLXStatusBit(bit: 10, name: "Data for Demonstration"),
        PLXStatusBit(bit: 11, name: "Data for Testing"),
        PLXStatusBit(bit: 12, name: "Calibration Ongoing"),
        PLXStatusBit(bit: 13, name: "Measurement Unavailable"),
        PLXStatusBit(bit: 14, name: "Questionable Measurement Detected"),
        PLXStatusBit(bit: 15, name: "Invalid Measurement Detected"),
    ]

    var described: (text: String, json: JSONValue) { describeBits(UInt32(rawValue), Self.definedBits, digits: 4) }
}

/// Device and Sensor Status (24 bit) and the Device and Sensor Status Support field of PLX
/// Features: bits 0–15 are defined below, bits 16–23 are reserved.
public struct PLXDeviceAndSensorStatus: OptionSet, Hashable, Sendable {
    /// Only the low 24 bits travel; the encoder rejects more.
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let extendedDisplayUpdateOngoing = Self(rawValue: 1 << 0)
    public static let equipmentMalfunctionDetected = Self(rawValue: 1 << 1)
    public static let signalProcessingIrregularityDetected = Self(rawValue: 1 << 2)
    public static let inadequateSignalDetected = Self(rawValue: 1 << 3)
    public static let poorSignalDetected = Self(rawValue: 1 << 4)
    public static let lowPerfusionDetected = Self(rawValue: 1 << 5)
    public static let erraticSignalDetected = Self(rawValue: 1 << 6)
    public static let nonpulsatileSignalDetected = Self(rawValue: 1 << 7)
    public static let questionablePulseDetected = Self(rawValue: 1 << 8)
    public static let signalAnalysisOngoing = Self(rawValue: 1 << 9)
    public static let sensorInterferenceDetected = Self(rawValue: 1 << 10)
    public static let sensorUnconnectedToUser = Self(rawValue: 1 << 11)
    public static let unknownSensorConnected = Self(rawValue: 1 << 12)
    public static let sensorDisplaced = Self(rawValue: 1 << 13)
    public static let sensorMalfunctioning = Self(rawValue: 1 << 14)
    public static let sensorDisconnected = Self(rawValue: 1 << 15)

    static let definedBits: [PLXStatusBit] = [
        PLXStatusBit(bit: 0, name: "Extended Display Update Ongoing"),
        PLXStatusBit(bit: 1, name: "Equipment Malfunction Detected"),
        PLXStatusBit(bit: 2, name: "Signal Processing Irregularity Detected"),
        PLXStatusBit(bit: 3, name: "Inadequate Signal Detected"),
        PLXStatusBit(bit: 4, name: "Poor Signal Detected"),
        PLXStatusBit(bit: 5, name: "Low Perfusion Detected"),
        PLXStatusBit(bit: 6, name: "Erratic Signal Detected"),
        PLXStatusBit(bit: 7, name: "Nonpulsatile Signal Detected"),
        PLXStatusBit(bit: 8, name: "Questionable Pulse Detected"),
        PLXStatusBit(bit: 9, name: "Signal Analysis Ongoing"),
        PLXStatusBit(bit: 10, name: "Sensor Interference Detected"),
        PLXStatusBit(bit: 11, name: "Sensor Unconnected to User"),
        PLXStatusBit(bit: 12, name: "Unknown Sensor Connected"),
        PLXStatusBit(bit: 13, name: "Sensor Displaced"),
        PLXStatusBit(bit: 14, name: "Sensor Malfunctioning"),
        PLXStatusBit(bit: 15, name: "Sensor Disconnected"),
    ]

    static let maximum: UInt32 = 0xFF_FFFF

    func write(to writer: inout ByteWriter, field: String) throws(SIGEncodingError) {
        guard rawValue <= Self.maximum else {
            throw .outOfRange(field: field, value: hex(UInt64(rawValue), digits: 8), allowed: "24 bits (0x000000...0xFFFFFF)")
        }
        writer.appendUInt24(rawValue)
    }

    var described: (text: String, json: JSONValue) { describeBits(rawValue, Self.definedBits, digits: 6) }
}

/// "0x2020: Measurement Ongoing, Measurement Unavailable" and a JSON object with the raw value,
/// the names of the set defined bits and any set reserved bits, so nothing received is hidden.
func describeBits(_ raw: UInt32, _ defined: [PLXStatusBit], digits: Int) -> (text: String, json: JSONValue) {
    let names = defined.filter { raw & (1 << UInt32($0.bit)) != 0 }.map(\.name)
    let definedMask = defined.reduce(UInt32(0)) { $0 | 1 << UInt32($1.bit) }
    let reserved = raw & ~definedMask
    var parts = names
    if reserved != 0 { parts.append("reserved bits \(hex(UInt64(reserved), digits: digits)) set") }
    let text = hex(UInt64(raw), digits: digits) + (parts.isEmpty ? " (none set)" : ": " + parts.joined(separator: ", "))
    return (text, .object(["raw": .int(Int(raw)), "set": .array(names.map { .string(snakeName($0)) }),
                           "reserved_bits": .int(Int(reserved))]))
}

/// SpO2 (percent) and PR (pulse rate, beats per minute), two SFLOATs: the SpO2PR-Normal, -Fast,
/// -Slow and -Spot-check fields. NaN means the oximeter has no valid value.
public struct PLXSpO2PR: Hashable, Sendable {
    public var spO2: IEEE11073SFloat
    public var pulseRate: IEEE11073SFloat

    public init(spO2: IEEE11073SFloat, pulseRate: IEEE11073SFloat) {
        self.spO2 = spO2
        self.pulseRate = pulseRate
    }

    static let byteCount = 4

    init(reading reader: inout FieldReader, field: String) throws(SIGDecodingError) {
        spO2 = IEEE11073SFloat(rawValue: try reader.uint16("\(field) SpO2 (SFLOAT)"))
        pulseRate = IEEE11073SFloat(rawValue: try reader.uint16("\(field) PR (SFLOAT)"))
    }

    func write(to writer: inout ByteWriter) {
        spO2.write(to: &writer)
        pulseRate.write(to: &writer)
    }

    func fields(key: String, label: String) -> [DescribedField] {
        [DescribedField("\(key)_spo2", "\(label) SpO2", plxText(spO2, unit: "%", missing: "no valid SpO2"), spO2.value.json),
         DescribedField("\(key)_pulse_rate", "\(label) pulse rate", plxText(pulseRate, unit: "bpm", missing: "no valid pulse rate"),
                        pulseRate.value.json)]
    }
}

func plxText(_ value: IEEE11073SFloat, unit: String, missing: String) -> String {
    value.value.isSpecial ? "\(value.value) — \(missing)" : "\(value.value) \(unit)"
}
