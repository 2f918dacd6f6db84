import Testing
@testable import SIGProfiles

@Suite struct TemperatureMeasurementTests {
    let fullBytes: [UInt8] = [0x07, 0xDA, 0x03, 0x00, 0xFF, 0xE8, 0x07, 0x03, 0x0F, 0x0D, 0x2D, 0x1E, 0x06]

    @Test func minimalCelsius() throws {
        let value = try TemperatureMeasurement(decoding: [0x00, 0x6E, 0x01, 0x00, 0xFF])
        #expect(value.unit == .celsius)
        #expect(value.temperature.doubleValue == 36.6)
        #expect(value.timeStamp == nil && value.temperatureType == nil)
    }

    @Test func allFields() throws {
        // Fahrenheit 98.6, 2024-03-15 13:45:30, mouth.
        let value = try TemperatureMeasurement(decoding: fullBytes)
        #expect(value.unit == .fahrenheit)
        #expect(value.temperature.doubleValue == 98.6)
        #expect(value.timeStamp == DateTime(year: 2024, month: 3, day: 15, hours: 13, minutes: 45, seconds: 30))
        #expect(value.temperatureType == .mouth)
    }

    @Test func encodes() throws {
        let value = TemperatureMeasurement(
            temperature: try IEEE11073Float(98.6, fractionDigits: 1), unit: .fahrenheit,
            timeStamp: DateTime(year: 2024, month: 3, day: 15, hours: 13, minutes: 45, seconds: 30),
            temperatureType: .mouth)
        #expect(try value.encoded() == fullBytes)
        let celsius = TemperatureMeasurement(temperature: try IEEE11073Float(36.6, fractionDigits: 1))
        #expect(try celsius.encoded() == [0x00, 0x6E, 0x01, 0x00, 0xFF])
        // Type only: flags 0x04.
        let typed = TemperatureMeasurement(temperature: try IEEE11073Float(36.6, fractionDigits: 1), temperatureType: .ear)
        #expect(try typed.encoded() == [0x04, 0x6E, 0x01, 0x00, 0xFF, 0x03])
        // Unknown date parts (0) are allowed.
        let unknownDate = TemperatureMeasurement(temperature: .nan,
                                                 timeStamp: DateTime(year: 0, month: 0, day: 0, hours: 0, minutes: 0, seconds: 0))
        #expect(try unknownDate.encoded() == [0x02, 0xFF, 0xFF, 0x7F, 0x00, 0, 0, 0, 0, 0, 0, 0])
    }

    @Test func faultIsNotANumber() throws {
        let value = try TemperatureMeasurement(decoding: [0x00, 0xFF, 0xFF, 0x7F, 0x00])
        #expect(value.temperature.value == .nan)
        #expect(value.temperature.doubleValue == nil)
    }

    @Test func encoderRejectsInvalidTimeStamp() {
        let value = TemperatureMeasurement(temperature: .nan,
                                           timeStamp: DateTime(year: 2024, month: 2, day: 1, hours: 24, minutes: 0, seconds: 0))
        #expect(throws: SIGEncodingError.outOfRange(field: "time stamp hours", value: "24", allowed: "0-23")) {
            try value.encoded()
        }
    }

    @Test func malformed() {
        #expect(throws: SIGDecodingError.truncated(field: "temperature (FLOAT)", needed: 4, available: 2)) {
            try TemperatureMeasurement(decoding: [0x00, 0x6E, 0x01])
        }
        #expect(throws: SIGDecodingError.flaggedFieldMissing(flag: "time stamp present (bit 1)", field: "time stamp",
                                                             needed: 7, available: 3)) {
            try TemperatureMeasurement(decoding: [0x02, 0x6E, 0x01, 0x00, 0xFF, 0xE8, 0x07, 0x03])
        }
        #expect(throws: SIGDecodingError.flaggedFieldMissing(flag: "temperature type present (bit 2)",
                                                             field: "temperature type", needed: 1, available: 0)) {
            try TemperatureMeasurement(decoding: [0x04, 0x6E, 0x01, 0x00, 0xFF])
        }
        var badMonth = fullBytes
        badMonth[7] = 13
        #expect(throws: SIGDecodingError.outOfRange(field: "time stamp month", value: "13", allowed: "1-12, or 0 for not known")) {
            try TemperatureMeasurement(decoding: badMonth)
        }
        var badYear = fullBytes
        badYear[5] = 0x10; badYear[6] = 0x00 // 16
        #expect(throws: SIGDecodingError.self) { try TemperatureMeasurement(decoding: badYear) }
        var badType = fullBytes
        badType[12] = 0
        #expect(throws: SIGDecodingError.reservedValue(field: "temperature type", value: "0", allowed: "1-9")) {
            try TemperatureMeasurement(decoding: badType)
        }
        #expect(throws: SIGDecodingError.trailingBytes(count: 1, after: "the temperature type")) {
            try TemperatureMeasurement(decoding: fullBytes + [0x00])
        }
        #expect(throws: SIGDecodingError.trailingBytes(count: 2, after: "the temperature")) {
            try TemperatureMeasurement(decoding: [0x00, 0x6E, 0x01, 0x00, 0xFF, 0x01, 0x02])
        }
    }
}

@Suite struct ThermometerOtherCharacteristicsTests {
    @Test func temperatureType() throws {
        #expect(try TemperatureType(decoding: [0x01]) == .armpit)
        #expect(try TemperatureType(decoding: [0x09]) == .tympanum)
        #expect(TemperatureType.gastrointestinalTract.encoded == [0x05])
        #expect(throws: SIGDecodingError.reservedValue(field: "temperature type", value: "10", allowed: "1-9")) {
            try TemperatureType(decoding: [0x0A])
        }
        #expect(throws: SIGDecodingError.self) { try TemperatureType(decoding: [0x00]) }
        #expect(throws: SIGDecodingError.wrongLength(value: "Temperature Type", expected: 1, actual: 2)) {
            try TemperatureType(decoding: [0x01, 0x01])
        }
    }

    @Test func measurementInterval() throws {
        #expect(try MeasurementInterval(decoding: [0x3C, 0x00]).seconds == 60)
        #expect(try MeasurementInterval(decoding: [0x00, 0x00]).isPeriodic == false)
        #expect(MeasurementInterval(seconds: 0x0E10).encoded == [0x10, 0x0E])
        #expect(throws: SIGDecodingError.wrongLength(value: "Measurement Interval", expected: 2, actual: 1)) {
            try MeasurementInterval(decoding: [0x3C])
        }
    }
}
