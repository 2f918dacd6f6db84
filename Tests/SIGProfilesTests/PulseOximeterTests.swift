import Testing
@testable import ProfileCommands
@testable import SIGProfiles

// Vectors are built by hand from the field tables of the Pulse Oximeter Service v1.0.1 (PLX
// Spot-check Measurement, PLX Continuous Measurement, PLX Features) and the GATT Specification
// Supplement's bit definitions: little-endian fields, SFLOAT = 4-bit exponent | 12-bit mantissa
// (IEEE 11073-20601), e.g. 97 % → 0x0061, 98.5 % → mantissa 985, exponent −1 → 0xF3D9.

@Suite struct PLXSpotCheckMeasurementTests {
    /// Flags 0x1F (timestamp, measurement status, device and sensor status, PAI, device clock not
    /// set); SpO2 97 % (61 00), PR 72 bpm (48 00); 2024-03-15 13:45:30 (E8 07 03 0F 0D 2D 1E);
    /// status Validated Data bit 7 + Fully Qualified bit 8 = 0x0180; device status Low Perfusion
    /// bit 5 + Sensor Displaced bit 13 = 0x002020; PAI 2.5 % (mantissa 25, exponent −1 = 0xF019).
    let fullBytes: [UInt8] = [0x1F, 0x61, 0x00, 0x48, 0x00, 0xE8, 0x07, 0x03, 0x0F, 0x0D, 0x2D, 0x1E,
                              0x80, 0x01, 0x20, 0x20, 0x00, 0x19, 0xF0]

    @Test func minimal() throws {
        let value = try PLXSpotCheckMeasurement(decoding: [0x00, 0x61, 0x00, 0x48, 0x00])
        #expect(value.spO2PR.spO2.doubleValue == 97)
        #expect(value.spO2PR.pulseRate.doubleValue == 72)
        #expect(value.timestamp == nil && value.measurementStatus == nil && value.deviceAndSensorStatus == nil)
        #expect(value.pulseAmplitudeIndex == nil && !value.deviceClockIsNotSet)
    }

    @Test func allFields() throws {
        let value = try PLXSpotCheckMeasurement(decoding: fullBytes)
        #expect(value.timestamp == DateTime(year: 2024, month: 3, day: 15, hours: 13, minutes: 45, seconds: 30))
        #expect(value.deviceClockIsNotSet)
        #expect(value.measurementStatus == [.validatedData, .fullyQualifiedData])
        #expect(value.deviceAndSensorStatus == [.lowPerfusionDetected, .sensorDisplaced])
        #expect(value.pulseAmplitudeIndex?.doubleValue == 2.5)
    }

    @Test func encodes() throws {
        let value = PLXSpotCheckMeasurement(
            spO2PR: PLXSpO2PR(spO2: try IEEE11073SFloat(97, fractionDigits: 0), pulseRate: try IEEE11073SFloat(72, fractionDigits: 0)),
            timestamp: DateTime(year: 2024, month: 3, day: 15, hours: 13, minutes: 45, seconds: 30), deviceClockIsNotSet: true,
            measurementStatus: [.validatedData, .fullyQualifiedData], deviceAndSensorStatus: [.lowPerfusionDetected, .sensorDisplaced],
            pulseAmplitudeIndex: try IEEE11073SFloat(2.5, fractionDigits: 1))
        #expect(try value.encoded() == fullBytes)
        // Measurement status only: flags 0x02, Measurement Unavailable bit 13 = 0x2000, SpO2 and PR NaN (0x07FF).
        let unavailable = PLXSpotCheckMeasurement(spO2PR: PLXSpO2PR(spO2: .nan, pulseRate: .nan),
                                                  measurementStatus: .measurementUnavailable)
        #expect(try unavailable.encoded() == [0x02, 0xFF, 0x07, 0xFF, 0x07, 0x00, 0x20])
    }

    @Test func encoderRejectsWideDeviceStatus() {
        let value = PLXSpotCheckMeasurement(spO2PR: PLXSpO2PR(spO2: .nan, pulseRate: .nan),
                                            deviceAndSensorStatus: PLXDeviceAndSensorStatus(rawValue: 0x0100_0000))
        #expect(throws: SIGEncodingError.outOfRange(field: "device and sensor status", value: "0x01000000",
                                                    allowed: "24 bits (0x000000...0xFFFFFF)")) {
            try value.encoded()
        }
    }

    @Test func malformed() {
        #expect(throws: SIGDecodingError.truncated(field: "flags", needed: 1, available: 0)) {
            try PLXSpotCheckMeasurement(decoding: [])
        }
        #expect(throws: SIGDecodingError.truncated(field: "spot-check PR (SFLOAT)", needed: 2, available: 1)) {
            try PLXSpotCheckMeasurement(decoding: [0x00, 0x61, 0x00, 0x48])
        }
        // Flags announce a timestamp; only 3 of its 7 bytes follow.
        #expect(throws: SIGDecodingError.flaggedFieldMissing(flag: "timestamp present (bit 0)", field: "timestamp",
                                                             needed: 7, available: 3)) {
            try PLXSpotCheckMeasurement(decoding: [0x01, 0x61, 0x00, 0x48, 0x00, 0xE8, 0x07, 0x03])
        }
        #expect(throws: SIGDecodingError.flaggedFieldMissing(flag: "device and sensor status present (bit 2)",
                                                             field: "device and sensor status", needed: 3, available: 2)) {
            try PLXSpotCheckMeasurement(decoding: [0x04, 0x61, 0x00, 0x48, 0x00, 0x20, 0x20])
        }
        #expect(throws: SIGDecodingError.flaggedFieldMissing(flag: "pulse amplitude index present (bit 3)",
                                                             field: "pulse amplitude index", needed: 2, available: 0)) {
            try PLXSpotCheckMeasurement(decoding: [0x08, 0x61, 0x00, 0x48, 0x00])
        }
        #expect(throws: SIGDecodingError.trailingBytes(count: 1, after: "the spot-check SpO2 and PR")) {
            try PLXSpotCheckMeasurement(decoding: [0x00, 0x61, 0x00, 0x48, 0x00, 0x00])
        }
        // Month 13 in the timestamp.
        #expect(throws: SIGDecodingError.outOfRange(field: "time stamp month", value: "13", allowed: "1-12, or 0 for not known")) {
            try PLXSpotCheckMeasurement(decoding: [0x01, 0x61, 0x00, 0x48, 0x00, 0xE8, 0x07, 0x0D, 0x0F, 0x0D, 0x2D, 0x1E])
        }
    }

    @Test func specialValuesAreNotNumbers() throws {
        // NaN 0x07FF, NRes 0x0800, +INF 0x07FE, −INF 0x0802, reserved 0x0801 (IEEE 11073-20601 special codes).
        let specials: [([UInt8], MedicalFloatValue)] = [([0xFF, 0x07], .nan), ([0x00, 0x08], .nres), ([0xFE, 0x07], .positiveInfinity),
                                                        ([0x02, 0x08], .negativeInfinity), ([0x01, 0x08], .reserved)]
        for (code, special) in specials {
            let value = try PLXSpotCheckMeasurement(decoding: [0x08] + code + [0x48, 0x00] + code)
            #expect(value.spO2PR.spO2.value == special)
            #expect(value.pulseAmplitudeIndex?.value == special)
            let described = value.fields.first { $0.key == "spot_check_spo2" }
            #expect(described?.text.contains("no valid SpO2") == true)
            #expect(described?.json == .string(special.specialName ?? ""))
        }
    }

    @Test func reservedFlagBitsAreIgnored() throws {
        let value = try PLXSpotCheckMeasurement(decoding: [0xE0, 0x61, 0x00, 0x48, 0x00])
        #expect(value.spO2PR.spO2.doubleValue == 97)
        #expect(try value.encoded() == [0x00, 0x61, 0x00, 0x48, 0x00])
    }
}

@Suite struct PLXContinuousMeasurementTests {
    /// Flags 0x1F; Normal 98.5 % (D9 F3) / 72 bpm (48 00); Fast 97 % (61 00) / 75 bpm (4B 00);
    /// Slow 98 % (62 00) / 70 bpm (46 00); status Measurement Ongoing bit 5 = 0x0020; device status
    /// Signal Analysis Ongoing bit 9 = 0x000200; PAI 1.2 % (mantissa 12, exponent −1 = 0xF00C).
    let fullBytes: [UInt8] = [0x1F, 0xD9, 0xF3, 0x48, 0x00, 0x61, 0x00, 0x4B, 0x00, 0x62, 0x00, 0x46, 0x00,
                              0x20, 0x00, 0x00, 0x02, 0x00, 0x0C, 0xF0]

    @Test func minimal() throws {
        let value = try PLXContinuousMeasurement(decoding: [0x00, 0xD9, 0xF3, 0x48, 0x00])
        #expect(value.normal.spO2.doubleValue == 98.5)
        #expect(value.normal.pulseRate.doubleValue == 72)
        #expect(value.fast == nil && value.slow == nil && value.measurementStatus == nil)
        #expect(value.deviceAndSensorStatus == nil && value.pulseAmplitudeIndex == nil)
    }

    @Test func allFields() throws {
        let value = try PLXContinuousMeasurement(decoding: fullBytes)
        #expect(value.fast?.spO2.doubleValue == 97 && value.fast?.pulseRate.doubleValue == 75)
        #expect(value.slow?.spO2.doubleValue == 98 && value.slow?.pulseRate.doubleValue == 70)
        #expect(value.measurementStatus == .measurementOngoing)
        #expect(value.deviceAndSensorStatus == .signalAnalysisOngoing)
        #expect(value.pulseAmplitudeIndex?.doubleValue == 1.2)
    }

    @Test func encodes() throws {
        let value = PLXContinuousMeasurement(
            normal: PLXSpO2PR(spO2: try IEEE11073SFloat(98.5, fractionDigits: 1), pulseRate: try IEEE11073SFloat(72, fractionDigits: 0)),
            fast: PLXSpO2PR(spO2: try IEEE11073SFloat(97, fractionDigits: 0), pulseRate: try IEEE11073SFloat(75, fractionDigits: 0)),
            slow: PLXSpO2PR(spO2: try IEEE11073SFloat(98, fractionDigits: 0), pulseRate: try IEEE11073SFloat(70, fractionDigits: 0)),
            measurementStatus: .measurementOngoing, deviceAndSensorStatus: .signalAnalysisOngoing,
            pulseAmplitudeIndex: try IEEE11073SFloat(1.2, fractionDigits: 1))
        #expect(try value.encoded() == fullBytes)
        // Slow and device status only: flags 0x0A; Sensor Unconnected to User bit 11 = 0x000800.
        let partial = PLXContinuousMeasurement(normal: PLXSpO2PR(spO2: .nan, pulseRate: .nan),
                                               slow: PLXSpO2PR(spO2: .nan, pulseRate: .nan),
                                               deviceAndSensorStatus: .sensorUnconnectedToUser)
        #expect(try partial.encoded() == [0x0A, 0xFF, 0x07, 0xFF, 0x07, 0xFF, 0x07, 0xFF, 0x07, 0x00, 0x08, 0x00])
    }

    @Test func fieldOrderFollowsFlags() throws {
        // Only Slow (bit 1) and PAI (bit 4): the Slow pair directly follows Normal.
        let value = try PLXContinuousMeasurement(decoding: [0x12, 0x61, 0x00, 0x48, 0x00, 0x62, 0x00, 0x46, 0x00, 0x0C, 0xF0])
        #expect(value.fast == nil)
        #expect(value.slow?.spO2.doubleValue == 98)
        #expect(value.pulseAmplitudeIndex?.doubleValue == 1.2)
    }

    @Test func malformed() {
        #expect(throws: SIGDecodingError.truncated(field: "normal SpO2 (SFLOAT)", needed: 2, available: 1)) {
            try PLXContinuousMeasurement(decoding: [0x00, 0xD9])
        }
        #expect(throws: SIGDecodingError.flaggedFieldMissing(flag: "SpO2PR-Fast present (bit 0)", field: "SpO2PR-Fast",
                                                             needed: 4, available: 2)) {
            try PLXContinuousMeasurement(decoding: [0x01, 0xD9, 0xF3, 0x48, 0x00, 0x61, 0x00])
        }
        #expect(throws: SIGDecodingError.flaggedFieldMissing(flag: "SpO2PR-Slow present (bit 1)", field: "SpO2PR-Slow",
                                                             needed: 4, available: 0)) {
            try PLXContinuousMeasurement(decoding: [0x02, 0xD9, 0xF3, 0x48, 0x00])
        }
        #expect(throws: SIGDecodingError.flaggedFieldMissing(flag: "measurement status present (bit 2)",
                                                             field: "measurement status", needed: 2, available: 1)) {
            try PLXContinuousMeasurement(decoding: [0x04, 0xD9, 0xF3, 0x48, 0x00, 0x20])
        }
        #expect(throws: SIGDecodingError.trailingBytes(count: 2, after: "the measurement status")) {
            try PLXContinuousMeasurement(decoding: [0x04, 0xD9, 0xF3, 0x48, 0x00, 0x20, 0x00, 0x0C, 0xF0])
        }
    }

    @Test func reservedStatusBitsAreShown() throws {
        // Measurement status 0x0021: bit 0 is reserved, bit 5 Measurement Ongoing.
        let value = try PLXContinuousMeasurement(decoding: [0x04, 0xD9, 0xF3, 0x48, 0x00, 0x21, 0x00])
        let status = value.fields.first { $0.key == "measurement_status" }
        #expect(status?.text == "0x0021: Measurement Ongoing, reserved bits 0x0001 set")
        #expect(status?.json == .object(["raw": .int(0x21), "set": .array([.string("measurement_ongoing")]),
                                         "reserved_bits": .int(1)]))
    }
}

@Suite struct PLXFeaturesTests {
    /// Supported Features 0x0043 (Measurement Status bit 0, Device and Sensor Status bit 1, PAI bit 6);
    /// Measurement Status Support 0x6020 (Ongoing bit 5, Unavailable bit 13, Questionable bit 14);
    /// Device and Sensor Status Support 0x000A68 (Inadequate bit 3, Low Perfusion bit 5, Erratic
    /// bit 6, Signal Analysis Ongoing bit 9, Sensor Unconnected to User bit 11).
    let fullBytes: [UInt8] = [0x43, 0x00, 0x20, 0x60, 0x68, 0x0A, 0x00]

    @Test func decodes() throws {
        let value = try PLXFeatures(decoding: fullBytes)
        #expect(value.supported == [.measurementStatus, .deviceAndSensorStatus, .pulseAmplitudeIndex])
        #expect(value.measurementStatusSupport == [.measurementOngoing, .measurementUnavailable, .questionableMeasurementDetected])
        #expect(value.deviceAndSensorStatusSupport == [.inadequateSignalDetected, .lowPerfusionDetected, .erraticSignalDetected,
                                                       .signalAnalysisOngoing, .sensorUnconnectedToUser])
        // Timestamp for Spot-check (bit 3) only: no support fields follow.
        let bare = try PLXFeatures(decoding: [0x08, 0x00])
        #expect(bare.supported == .timestampForSpotCheck && bare.measurementStatusSupport == nil)
        // Device and Sensor Status (bit 1) without bit 0: its 24-bit field directly follows.
        let deviceOnly = try PLXFeatures(decoding: [0x02, 0x00, 0x00, 0x08, 0x00])
        #expect(deviceOnly.deviceAndSensorStatusSupport == .sensorUnconnectedToUser)
    }

    @Test func encodes() throws {
        let value = PLXFeatures(supported: .pulseAmplitudeIndex,
                                measurementStatusSupport: [.measurementOngoing, .measurementUnavailable, .questionableMeasurementDetected],
                                deviceAndSensorStatusSupport: [.inadequateSignalDetected, .lowPerfusionDetected, .erraticSignalDetected,
                                                               .signalAnalysisOngoing, .sensorUnconnectedToUser])
        #expect(try value.encoded() == fullBytes)
        // A bit 0 claimed without its field is not sent.
        var inconsistent = PLXFeatures(supported: .pulseAmplitudeIndex)
        inconsistent.supported.insert(.measurementStatus)
        #expect(try inconsistent.encoded() == [0x40, 0x00])
    }

    @Test func malformed() {
        #expect(throws: SIGDecodingError.truncated(field: "supported features", needed: 2, available: 1)) {
            try PLXFeatures(decoding: [0x43])
        }
        #expect(throws: SIGDecodingError.flaggedFieldMissing(flag: "measurement status support present (bit 0)",
                                                             field: "measurement status support", needed: 2, available: 0)) {
            try PLXFeatures(decoding: [0x01, 0x00])
        }
        #expect(throws: SIGDecodingError.flaggedFieldMissing(flag: "device and sensor status support present (bit 1)",
                                                             field: "device and sensor status support", needed: 3, available: 1)) {
            try PLXFeatures(decoding: [0x03, 0x00, 0x20, 0x60, 0x68])
        }
        #expect(throws: SIGDecodingError.trailingBytes(count: 2, after: "the supported features")) {
            try PLXFeatures(decoding: [0x40, 0x00, 0x20, 0x60])
        }
    }
}

@Suite struct PulseOximeterDecodeCommandTests {
    @Test func decodesContinuousAsText() throws {
        let output = try DecodeCommand.parse(["2A5F", "14 D9F3 4800 2000 0CF0"]).render()
        #expect(output.exitCode == 0)
        #expect(output.standardOutput == """
            PLX Continuous Measurement (0x2A5F)
              Normal SpO2: 98.5 %
              Normal pulse rate: 72 bpm
              SpO2PR-Fast: not present
              SpO2PR-Slow: not present
              Measurement status: 0x0020: Measurement Ongoing
              Device and sensor status: not present
              Pulse amplitude index: 1.2 %

            """)
    }

    @Test func decodesSpotCheckAndFeaturesAsJSON() throws {
        let spot = try DecodeCommand.parse(["0x2a5e", "00 6100 4800", "--json"]).render()
        #expect(spot.exitCode == 0)
        #expect(spot.standardOutput.hasPrefix(#"{"name":"plx_spot_check_measurement","uuid":"0x2A5E","value":{"#))
        #expect(spot.standardOutput.contains(#""spot_check_spo2":97"#))
        let features = try DecodeCommand.parse(["2A60", "4000", "--json"]).render()
        #expect(features.standardOutput.contains(#""supported_features":{"raw":64,"reserved_bits":0,"set":["pulse_amplitude_index"]}"#))
    }

    @Test func malformedExplains() throws {
        let output = try DecodeCommand.parse(["2A60", "01 00"]).render()
        #expect(output.exitCode == 1)
        #expect(output.standardError.contains("flags say measurement status support present (bit 0) but only 0 byte(s) remain"))
        #expect(SIGAttribute.supportedList.contains("0x2A5F PLX Continuous Measurement"))
    }
}
