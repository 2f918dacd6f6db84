import TestSupport
import BLECore
import Testing
@testable import SIGProfiles

@Suite struct RegistryTests {
    @Test func decodesByUUID() throws {
        let value = try SIGDecoder.decode(uuid: BluetoothUUID(0x2A37), bytes: [0x16, 0x48, 0x00, 0x04])
        #expect(value == .heartRateMeasurement(HeartRateMeasurement(heartRate: 72, sensorContact: .detected, rrIntervals: [1024])))
        #expect(value.description == """
            Heart Rate Measurement (0x2A37)
              Heart rate: 72 bpm
              Value format: uint8
              Sensor contact: supported, detected
              Energy expended: not present
              RR-intervals (1/1024 s): 1024
              RR-intervals: 1000.0 ms
            """)
        #expect(value.json.jsonText() == #"{"name":"heart_rate_measurement","uuid":"0x2A37","value":{"# +
            #""energy_expended_kj":null,"heart_rate_bpm":72,"rr_intervals_1024ths":[1024],"rr_intervals_ms":[1000],"# +
            #""sensor_contact":"detected","value_format":"uint8"}}"#)
    }

    @Test func everySupportedUUIDRoutes() throws {
        let samples: [(UInt16, [UInt8], SIGAttribute)] = [
            (0x2A37, [0x00, 0x48], .heartRateMeasurement),
            (0x2A38, [0x01], .bodySensorLocation),
            (0x2A39, [0x01], .heartRateControlPoint),
            (0x2A1C, [0x00, 0x6E, 0x01, 0x00, 0xFF], .temperatureMeasurement),
            (0x2A1E, [0x00, 0x6E, 0x01, 0x00, 0xFF], .intermediateTemperature),
            (0x2A1D, [0x02], .temperatureType),
            (0x2A21, [0x3C, 0x00], .measurementInterval),
            (0x2A6E, [0x29, 0x09], .temperature),
            (0x2A6F, [0xD7, 0x11], .humidity),
            (0x2A6D, [0x02, 0x76, 0x0F, 0x00], .pressure),
            (0x2A19, [0x50], .batteryLevel),
            (0x2A29, Array("ACME".utf8), .manufacturerName),
            (0x2A24, Array("M1".utf8), .modelNumber),
            (0x2A25, Array("0001".utf8), .serialNumber),
            (0x2A27, Array("A".utf8), .hardwareRevision),
            (0x2A26, Array("1.0".utf8), .firmwareRevision),
            (0x2A28, Array("2.0".utf8), .softwareRevision),
            (0x2A50, [0x01, 0x59, 0x00, 0x01, 0x00, 0x10, 0x01], .pnpID),
            (0x2A5E, [0x00, 0x61, 0x00, 0x48, 0x00], .plxSpotCheckMeasurement),
            (0x2A5F, [0x00, 0x61, 0x00, 0x48, 0x00], .plxContinuousMeasurement),
            (0x2A60, [0x00, 0x00], .plxFeatures),
            (0x290C, [0x00, 0x00, 0x02, 0x3C, 0x00, 0x00, 0x1E, 0x00, 0x00, 0x01, 0x04], .esMeasurement),
            (0x290B, [0x01], .esConfiguration),
            (0x2904, [0x0E, 0xFE, 0x2F, 0x27, 0x01, 0x00, 0x00], .presentationFormat),
        ]
        for (uuid, bytes, attribute) in samples {
            let value = try SIGDecoder.decode(uuid: BluetoothUUID(uuid), bytes: bytes)
            #expect(value.attribute == attribute)
            #expect(value.description.hasPrefix(attribute.name))
            #expect(!value.fields.isEmpty)
        }
        #expect(Set(samples.map(\.2)).count + 2 == SIGAttribute.allCases.count) // + 2906, 290D below
    }

    @Test func contextDependentDescriptors() throws {
        let range = try SIGDecoder.decode(uuid: BluetoothUUID(0x2906), bytes: [0x60, 0xF0, 0x34, 0x21],
                                          characteristic: BluetoothUUID(0x2A6E))
        #expect(range.description == """
            Valid Range (0x2906)
              Characteristic: 0x2A6E
              Lower bound: -40.00 °C
              Upper bound: 85.00 °C
            """)
        let trigger = try SIGDecoder.decode(uuid: BluetoothUUID(0x290D), bytes: [0x04, 0x88, 0x13],
                                            characteristic: BluetoothUUID(0x2A6F))
        #expect(trigger == .esTriggerSetting(.comparison(.lessThan, .humidity(try Humidity(percent: 50)))))
        #expect(throws: SIGDecodingError.self) {
            try SIGDecoder.decode(uuid: BluetoothUUID(0x2906), bytes: [0x60, 0xF0, 0x34, 0x21])
        }
        // Measurement Interval has a Valid Range but no ES Trigger Setting.
        #expect(throws: SIGDecodingError.self) {
            try SIGDecoder.decode(uuid: BluetoothUUID(0x290D), bytes: [0x03], characteristic: BluetoothUUID(0x2A21))
        }
        #expect(throws: SIGDecodingError.self) {
            try SIGDecoder.decode(uuid: BluetoothUUID(0x2906), bytes: [0x00], characteristic: BluetoothUUID(0x2A37))
        }
    }

    @Test func specialFloatIsReportedAsFault() throws {
        let value = try SIGDecoder.decode(uuid: BluetoothUUID(0x2A1C), bytes: [0x00, 0xFF, 0xFF, 0x7F, 0x00])
        #expect(value.description.contains("Temperature: NaN"))
        #expect(value.json.jsonText().contains(#""temperature":"nan""#))
    }

    @Test func rejectsUnknownAndBadControlPoint() {
        #expect(throws: SIGDecodingError.self) { try SIGDecoder.decode(uuid: BluetoothUUID(0x2A00), bytes: []) }
        #expect(throws: SIGDecodingError.controlPointRejected(.controlPointValueNotSupported(written: [0x02]))) {
            try SIGDecoder.decode(uuid: BluetoothUUID(0x2A39), bytes: [0x02])
        }
    }

    /// Every decoder must return or throw on arbitrary input: run all lengths 0...12 of pseudo-random bytes.
    @Test func decodersAreTotal() {
        var generator = SplitMix64(seed: 0x5EED)
        let contexts: [BluetoothUUID?] = [nil, BluetoothUUID(0x2A6E), BluetoothUUID(0x2A6D), BluetoothUUID(0x2A21)]
        for attribute in SIGAttribute.allCases {
            for length in 0...12 {
                for _ in 0..<40 {
                    let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
                    for context in contexts {
                        if let value = try? SIGDecoder.decode(uuid: BluetoothUUID(attribute.rawValue), bytes: bytes,
                                                              characteristic: context) {
                            #expect(!value.description.isEmpty)
                            #expect(value.json.jsonText() != "null")
                        }
                    }
                }
            }
        }
    }
}
