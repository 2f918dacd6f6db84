import Testing
@testable import SIGProfiles

@Suite struct EnvironmentalCharacteristicTests {
    @Test func temperature() throws {
        // 23.45 °C = 2345 = 0x0929; −10.5 °C = −1050 = 0xFBE6.
        #expect(try ESTemperature(celsius: 23.45).encoded == [0x29, 0x09])
        #expect(try ESTemperature(celsius: -10.5).encoded == [0xE6, 0xFB])
        #expect(try ESTemperature(decoding: [0x29, 0x09]).celsius == 23.45)
        #expect(try ESTemperature(decoding: [0xE6, 0xFB]).celsius == -10.5)
        #expect(try ESTemperature(decoding: [0x00, 0x80]).celsius == nil)
        #expect(ESTemperature.unknown.encoded == [0x00, 0x80])
        #expect(try ESTemperature(celsius: -273.15).encoded == [0x4D, 0x95])
    }

    @Test func temperatureMalformed() {
        // −27316 = 0x954C: below absolute zero.
        #expect(throws: SIGDecodingError.outOfRange(field: "temperature", value: "-273.16 °C",
                                                    allowed: "-273.15...327.67 °C, or 0x8000 for not known")) {
            try ESTemperature(decoding: [0x4C, 0x95])
        }
        #expect(throws: SIGDecodingError.wrongLength(value: "Temperature", expected: 2, actual: 1)) {
            try ESTemperature(decoding: [0x29])
        }
        #expect(throws: SIGDecodingError.self) { try ESTemperature(decoding: [0x29, 0x09, 0x00]) }
        #expect(throws: SIGEncodingError.self) { try ESTemperature(celsius: 327.68) }
        #expect(throws: SIGEncodingError.self) { try ESTemperature(celsius: .nan) }
    }

    @Test func humidity() throws {
        // 45.67 % = 4567 = 0x11D7.
        #expect(try Humidity(percent: 45.67).encoded == [0xD7, 0x11])
        #expect(try Humidity(decoding: [0xD7, 0x11]).percent == 45.67)
        #expect(try Humidity(decoding: [0x10, 0x27]).percent == 100)
        #expect(try Humidity(decoding: [0xFF, 0xFF]).percent == nil)
        #expect(throws: SIGDecodingError.self) { try Humidity(decoding: [0x11, 0x27]) } // 100.01 %
        #expect(throws: SIGDecodingError.self) { try Humidity(decoding: []) }
        #expect(throws: SIGEncodingError.self) { try Humidity(percent: -0.01) }
    }

    @Test func pressure() throws {
        // 101325.0 Pa = 1013250 dPa = 0x000F7602.
        #expect(try Pressure(pascals: 101_325).encoded == [0x02, 0x76, 0x0F, 0x00])
        #expect(try Pressure(decoding: [0x02, 0x76, 0x0F, 0x00]).pascals == 101_325)
        #expect(throws: SIGDecodingError.wrongLength(value: "Pressure", expected: 4, actual: 3)) {
            try Pressure(decoding: [0x02, 0x76, 0x0F])
        }
        #expect(throws: SIGEncodingError.self) { try Pressure(pascals: -1) }
    }
}

@Suite struct ValidRangeTests {
    @Test func perCharacteristicFormat() throws {
        // −40.00 °C = 0xF060, 85.00 °C = 0x2134.
        let temperature = try ValidRange(decoding: [0x60, 0xF0, 0x34, 0x21], format: .temperature)
        #expect(temperature.lower == .temperature(try ESTemperature(celsius: -40)))
        #expect(temperature.upper == .temperature(try ESTemperature(celsius: 85)))
        #expect(temperature.encoded == [0x60, 0xF0, 0x34, 0x21])
        let humidity = try ValidRange(decoding: [0x00, 0x00, 0x10, 0x27], format: .humidity)
        #expect(humidity.upper == .humidity(try Humidity(percent: 100)))
        // 30000.0 Pa = 0x000493E0, 110000.0 Pa = 0x0010C8E0.
        let pressure = try ValidRange(decoding: [0xE0, 0x93, 0x04, 0x00, 0xE0, 0xC8, 0x10, 0x00], format: .pressure)
        #expect(pressure.lower == .pressure(Pressure(rawValue: 300_000)))
        let interval = try ValidRange(decoding: [0x01, 0x00, 0x10, 0x0E], format: .measurementInterval)
        #expect(interval.upper == .measurementInterval(MeasurementInterval(seconds: 3600)))
        let built = try ValidRange(lower: .measurementInterval(MeasurementInterval(seconds: 1)),
                                   upper: .measurementInterval(MeasurementInterval(seconds: 3600)))
        #expect(built.encoded == [0x01, 0x00, 0x10, 0x0E])
    }

    @Test func malformed() {
        #expect(throws: SIGDecodingError.wrongLength(value: "Valid Range for characteristic 0x2A6D", expected: 8, actual: 4)) {
            try ValidRange(decoding: [0x00, 0x00, 0x10, 0x27], format: .pressure)
        }
        #expect(throws: SIGDecodingError.self) { try ValidRange(decoding: [0x10, 0x0E, 0x01, 0x00], format: .measurementInterval) }
        #expect(throws: SIGDecodingError.self) { try ValidRange(decoding: [0x00, 0x00, 0x11, 0x27], format: .humidity) }
        #expect(throws: SIGEncodingError.self) {
            try ValidRange(lower: .humidity(try Humidity(percent: 10)), upper: .pressure(Pressure(rawValue: 1)))
        }
    }
}

@Suite struct ESDescriptorTests {
    let measurementBytes: [UInt8] = [0x00, 0x00, 0x02, 0x3C, 0x00, 0x00, 0x1E, 0x00, 0x00, 0x01, 0x04]

    @Test func esMeasurement() throws {
        let value = try ESMeasurementDescriptor(decoding: measurementBytes)
        #expect(value == ESMeasurementDescriptor(samplingFunction: .arithmeticMean, measurementPeriod: 60,
                                                 updateInterval: 30, application: 0x01, measurementUncertainty: 4))
        #expect(value.applicationName == "Air")
        #expect(try value.encoded() == measurementBytes)
    }

    @Test func esMeasurementMalformed() {
        var badSampling = measurementBytes
        badSampling[2] = 0x08
        #expect(throws: SIGDecodingError.reservedValue(field: "sampling function", value: "0x08", allowed: "0x00-0x07")) {
            try ESMeasurementDescriptor(decoding: badSampling)
        }
        var badApplication = measurementBytes
        badApplication[9] = 0x22
        #expect(throws: SIGDecodingError.self) { try ESMeasurementDescriptor(decoding: badApplication) }
        #expect(throws: SIGDecodingError.wrongLength(value: "ES Measurement descriptor", expected: 11, actual: 10)) {
            try ESMeasurementDescriptor(decoding: Array(measurementBytes.prefix(10)))
        }
        let tooLong = ESMeasurementDescriptor(samplingFunction: .count, measurementPeriod: 0x100_0000, updateInterval: 0,
                                              application: 0, measurementUncertainty: 0)
        #expect(throws: SIGEncodingError.self) { try tooLong.encoded() }
    }

    @Test func triggerSetting() throws {
        #expect(try ESTriggerSetting(decoding: [0x00], format: .temperature) == .inactive)
        #expect(try ESTriggerSetting(decoding: [0x01, 0x3C, 0x00, 0x00], format: .temperature) == .fixedInterval(seconds: 60))
        #expect(try ESTriggerSetting(decoding: [0x02, 0x0A, 0x00, 0x00], format: .humidity) == .noLessThan(seconds: 10))
        #expect(try ESTriggerSetting(decoding: [0x03], format: .pressure) == .valueChanged)
        // Greater than 85.00 °C (0x2134); less than 50.00 % (0x1388); equal to 101325.0 Pa.
        let hot = ESTriggerSetting.comparison(.greaterThan, .temperature(try ESTemperature(celsius: 85)))
        #expect(try ESTriggerSetting(decoding: [0x06, 0x34, 0x21], format: .temperature) == hot)
        #expect(try hot.encoded() == [0x06, 0x34, 0x21])
        let dry = ESTriggerSetting.comparison(.lessThan, .humidity(try Humidity(percent: 50)))
        #expect(try dry.encoded() == [0x04, 0x88, 0x13])
        let pressure = ESTriggerSetting.comparison(.equal, .pressure(Pressure(rawValue: 1_013_250)))
        #expect(try pressure.encoded() == [0x08, 0x02, 0x76, 0x0F, 0x00])
        #expect(try ESTriggerSetting.fixedInterval(seconds: 60).encoded() == [0x01, 0x3C, 0x00, 0x00])
        #expect(try ESTriggerSetting.valueChanged.encoded() == [0x03])
    }

    @Test func triggerSettingMalformed() {
        #expect(throws: SIGDecodingError.truncated(field: "condition", needed: 1, available: 0)) {
            try ESTriggerSetting(decoding: [], format: .temperature)
        }
        #expect(throws: SIGDecodingError.reservedValue(field: "condition", value: "0x0A", allowed: "0x00-0x09")) {
            try ESTriggerSetting(decoding: [0x0A], format: .temperature)
        }
        #expect(throws: SIGDecodingError.truncated(field: "time interval operand", needed: 3, available: 2)) {
            try ESTriggerSetting(decoding: [0x01, 0x3C, 0x00], format: .temperature)
        }
        #expect(throws: SIGDecodingError.trailingBytes(count: 1, after: "the operand of condition 0x03")) {
            try ESTriggerSetting(decoding: [0x03, 0x00], format: .temperature)
        }
        // A pressure operand is 4 bytes.
        #expect(throws: SIGDecodingError.truncated(field: "comparison operand", needed: 4, available: 2)) {
            try ESTriggerSetting(decoding: [0x06, 0x34, 0x21], format: .pressure)
        }
        #expect(throws: SIGEncodingError.self) { try ESTriggerSetting.noLessThan(seconds: 0x100_0000).encoded() }
    }

    @Test func configuration() throws {
        #expect(try ESConfiguration(decoding: [0x00]) == .booleanAnd)
        #expect(try ESConfiguration(decoding: [0x01]) == .booleanOr)
        #expect(ESConfiguration.booleanOr.encoded == [0x01])
        #expect(throws: SIGDecodingError.self) { try ESConfiguration(decoding: [0x02]) }
        #expect(throws: SIGDecodingError.self) { try ESConfiguration(decoding: []) }
    }

    @Test func presentationFormat() throws {
        // sint16, exponent −2, °C (0x272F), namespace SIG, description 0.
        let temperature = PresentationFormat(format: 0x0E, exponent: -2, unit: 0x272F)
        #expect(temperature.encoded == [0x0E, 0xFE, 0x2F, 0x27, 0x01, 0x00, 0x00])
        #expect(PresentationFormat(format: 0x06, exponent: -2, unit: 0x27AD).encoded == [0x06, 0xFE, 0xAD, 0x27, 0x01, 0x00, 0x00])
        let pressure = try PresentationFormat(decoding: [0x08, 0xFF, 0x24, 0x27, 0x01, 0x00, 0x00])
        #expect(pressure == PresentationFormat(format: 0x08, exponent: -1, unit: 0x2724))
        #expect(pressure.formatName == "uint32" && pressure.unitName == "pascal")
        #expect(throws: SIGDecodingError.self) { try PresentationFormat(decoding: [0x00, 0xFF, 0x24, 0x27, 0x01, 0x00, 0x00]) }
        #expect(throws: SIGDecodingError.self) { try PresentationFormat(decoding: [0x1C, 0xFF, 0x24, 0x27, 0x01, 0x00, 0x00]) }
        #expect(throws: SIGDecodingError.self) { try PresentationFormat(decoding: [0x08, 0xFF, 0x24, 0x27, 0x01, 0x00]) }
    }
}
