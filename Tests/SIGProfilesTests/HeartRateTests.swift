import Testing
@testable import SIGProfiles

@Suite struct HeartRateMeasurementDecodingTests {
    @Test func minimalUInt8() throws {
        let value = try HeartRateMeasurement(decoding: [0x00, 0x48])
        #expect(value == HeartRateMeasurement(heartRate: 72))
    }

    @Test func contactDetectedWithRR() throws {
        // Flags 0x16: contact bits = 3 (detected), bit 4 RR present; RR 0x0400 = 1024/1024 s.
        let value = try HeartRateMeasurement(decoding: [0x16, 0x48, 0x00, 0x04])
        #expect(value.sensorContact == .detected)
        #expect(value.rrIntervals == [1024])
        #expect(value.rrIntervalSeconds == [1.0])
    }

    @Test func allFieldsUInt16() throws {
        // Flags 0x19: uint16, energy, RR. 300 bpm, 1000 kJ, RR 512 and 1024.
        let value = try HeartRateMeasurement(decoding: [0x19, 0x2C, 0x01, 0xE8, 0x03, 0x00, 0x02, 0x00, 0x04])
        #expect(value == HeartRateMeasurement(heartRate: 300, energyExpended: 1000, rrIntervals: [512, 1024],
                                              usesUInt16Format: true))
    }

    @Test func contactCodes() throws {
        #expect(try HeartRateMeasurement(decoding: [0x04, 0x50]).sensorContact == .notDetected)
        #expect(try HeartRateMeasurement(decoding: [0x02, 0x50]).sensorContact == .notSupported)
        #expect(try HeartRateMeasurement(decoding: [0x00, 0x50]).sensorContact == .notSupported)
    }

    @Test func malformedValues() {
        #expect(throws: SIGDecodingError.truncated(field: "flags", needed: 1, available: 0)) {
            try HeartRateMeasurement(decoding: [])
        }
        #expect(throws: SIGDecodingError.truncated(field: "heart rate value", needed: 1, available: 0)) {
            try HeartRateMeasurement(decoding: [0x00])
        }
        #expect(throws: SIGDecodingError.flaggedFieldMissing(flag: "heart rate is uint16 (bit 0)",
                                                             field: "heart rate value", needed: 2, available: 1)) {
            try HeartRateMeasurement(decoding: [0x01, 0x48])
        }
        #expect(throws: SIGDecodingError.flaggedFieldMissing(flag: "energy expended present (bit 3)",
                                                             field: "energy expended", needed: 2, available: 1)) {
            try HeartRateMeasurement(decoding: [0x08, 0x48, 0x01])
        }
        #expect(throws: SIGDecodingError.oddRRIntervalBytes(count: 3)) {
            try HeartRateMeasurement(decoding: [0x10, 0x48, 0x00, 0x04, 0x01])
        }
        #expect(throws: SIGDecodingError.flaggedFieldMissing(flag: "RR-intervals present (bit 4)",
                                                             field: "an RR-interval", needed: 2, available: 0)) {
            try HeartRateMeasurement(decoding: [0x10, 0x48])
        }
        #expect(throws: SIGDecodingError.trailingBytes(count: 1, after: "the heart rate value")) {
            try HeartRateMeasurement(decoding: [0x00, 0x48, 0x00])
        }
    }

    @Test func errorMessagesExplain() {
        let error = SIGDecodingError.flaggedFieldMissing(flag: "energy expended present (bit 3)",
                                                         field: "energy expended", needed: 2, available: 1)
        #expect(error.description == "flags say energy expended present (bit 3) but only 1 byte(s) remain (energy expended needs 2)")
        #expect(SIGDecodingError.oddRRIntervalBytes(count: 3).description.contains("odd number of bytes"))
    }
}

@Suite struct HeartRateMeasurementEncodingTests {
    @Test func formats() throws {
        #expect(try HeartRateMeasurement(heartRate: 72).encoded().bytes == [0x00, 0x48])
        #expect(try HeartRateMeasurement(heartRate: 72, usesUInt16Format: true).encoded().bytes == [0x01, 0x48, 0x00])
        #expect(try HeartRateMeasurement(heartRate: 300).encoded().bytes == [0x01, 0x2C, 0x01])
        #expect(try HeartRateMeasurement(heartRate: 72, sensorContact: .detected).encoded().bytes == [0x06, 0x48])
        #expect(try HeartRateMeasurement(heartRate: 72, sensorContact: .notDetected).encoded().bytes == [0x04, 0x48])
    }

    @Test func energyAndRR() throws {
        let value = HeartRateMeasurement(heartRate: 72, sensorContact: .detected, energyExpended: 1000, rrIntervals: [800])
        // 0x08 | 0x10 | 0x06 = 0x1E.
        #expect(try value.encoded().bytes == [0x1E, 0x48, 0xE8, 0x03, 0x20, 0x03])
    }

    @Test func energySaturates() throws {
        #expect(try HeartRateMeasurement(heartRate: 72, energyExpended: 70_000).encoded().bytes == [0x08, 0x48, 0xFF, 0xFF])
        #expect(try HeartRateMeasurement(heartRate: 72, energyExpended: 0xFFFF).encoded().bytes == [0x08, 0x48, 0xFF, 0xFF])
        #expect(try HeartRateMeasurement(heartRate: 72, energyExpended: 0xFFFE).encoded().bytes == [0x08, 0x48, 0xFE, 0xFF])
    }

    @Test func rrIntervalsThatDoNotFitAtMTU23AreCarriedOldestFirst() throws {
        let intervals = (1...10).map { UInt16(800 + $0) }
        // 20 bytes: flags + uint8 + energy = 4, room for 8 RR: the 8 oldest go now, 809 and 810 next.
        let withEnergy = try HeartRateMeasurement(heartRate: 72, energyExpended: 5, rrIntervals: intervals).encoded(maxLength: 20)
        #expect(withEnergy.bytes.count == 20)
        #expect(withEnergy.remainingRRIntervals == [809, 810])
        #expect(Array(withEnergy.bytes.prefix(6)) == [0x18, 0x48, 0x05, 0x00, 0x21, 0x03]) // first sent is 801
        #expect(try HeartRateMeasurement(decoding: withEnergy.bytes).rrIntervals == Array(intervals.prefix(8)))
        // Without energy: 2 fixed bytes, 9 RR fit.
        let plain = try HeartRateMeasurement(heartRate: 72, rrIntervals: intervals).encoded(maxLength: 20)
        #expect(plain.bytes.count == 20)
        #expect(plain.remainingRRIntervals == [810])
        // uint16 + energy: 5 fixed bytes, 7 RR fit, 19 bytes.
        let wide = try HeartRateMeasurement(heartRate: 300, energyExpended: 5, rrIntervals: intervals).encoded(maxLength: 20)
        #expect(wide.bytes.count == 19)
        #expect(wide.remainingRRIntervals == [808, 809, 810])
        #expect(try HeartRateMeasurement(decoding: wide.bytes).rrIntervals == Array(intervals.prefix(7)))
    }

    @Test func rrIntervalsThatDoNotFitAtMTU247AreCarriedOldestFirst() throws {
        let intervals = (0..<150).map { UInt16($0) }
        // 244 bytes: 2 fixed → 121 RR.
        let plain = try HeartRateMeasurement(heartRate: 60, rrIntervals: intervals).encoded(maxLength: 244)
        #expect(plain.bytes.count == 244)
        #expect(plain.remainingRRIntervals == Array(121..<150))
        #expect(try HeartRateMeasurement(decoding: plain.bytes).rrIntervals.first == 0)
        let withEnergy = try HeartRateMeasurement(heartRate: 60, energyExpended: 1, rrIntervals: intervals).encoded(maxLength: 244)
        #expect(withEnergy.bytes.count == 244)
        #expect(withEnergy.remainingRRIntervals.count == 30)
        let few = try HeartRateMeasurement(heartRate: 60, rrIntervals: [1, 2, 3]).encoded(maxLength: 244)
        #expect(few.remainingRRIntervals.isEmpty)
        #expect(few.bytes == [0x10, 0x3C, 0x01, 0x00, 0x02, 0x00, 0x03, 0x00])
    }

    @Test func noRoomForAnyRRClearsTheFlagAndCarriesThemAll() throws {
        let result = try HeartRateMeasurement(heartRate: 72, energyExpended: 1, rrIntervals: [1, 2]).encoded(maxLength: 5)
        #expect(result.bytes == [0x08, 0x48, 0x01, 0x00])
        #expect(result.remainingRRIntervals == [1, 2])
    }

    @Test func mergingKeepsBothIntervalListsOldestFirstWithTheNewerRate() throws {
        let queued = try HeartRateMeasurement(heartRate: 70, sensorContact: .detected, rrIntervals: [850, 860]).encoded().bytes
        let incoming = try HeartRateMeasurement(heartRate: 72, sensorContact: .detected, rrIntervals: [840]).encoded().bytes
        let merged = try #require(HeartRateMeasurement.merging(queued: queued, incoming: incoming, maxLength: 20))
        let decoded = try HeartRateMeasurement(decoding: merged)
        #expect(decoded.heartRate == 72)
        #expect(decoded.sensorContact == .detected)
        #expect(decoded.rrIntervals == [850, 860, 840])
    }

    @Test func mergingRefusesWhenTheIntervalsWouldNotFitSoNoneIsLost() throws {
        let queued = try HeartRateMeasurement(heartRate: 70, rrIntervals: Array(repeating: 800, count: 8)).encoded().bytes
        let incoming = try HeartRateMeasurement(heartRate: 72, rrIntervals: [810, 820]).encoded().bytes
        #expect(HeartRateMeasurement.merging(queued: queued, incoming: incoming, maxLength: 20) == nil)
        #expect(HeartRateMeasurement.merging(queued: [0x10], incoming: incoming, maxLength: 20) == nil)
    }

    @Test func mandatoryFieldsMustFit() {
        #expect(throws: SIGEncodingError.doesNotFit(value: "Heart Rate Measurement", needed: 4, maxLength: 3)) {
            try HeartRateMeasurement(heartRate: 72, energyExpended: 1).encoded(maxLength: 3)
        }
    }
}

@Suite struct HeartRateOtherCharacteristicsTests {
    @Test func bodySensorLocation() throws {
        #expect(try BodySensorLocation(decoding: [0x01]) == .chest)
        #expect(try BodySensorLocation(decoding: [0x06]) == .foot)
        #expect(BodySensorLocation.earLobe.encoded == [0x05])
        #expect(throws: SIGDecodingError.reservedValue(field: "body sensor location", value: "7", allowed: "0-6")) {
            try BodySensorLocation(decoding: [0x07])
        }
        #expect(throws: SIGDecodingError.wrongLength(value: "Body Sensor Location", expected: 1, actual: 0)) {
            try BodySensorLocation(decoding: [])
        }
        #expect(throws: SIGDecodingError.self) { try BodySensorLocation(decoding: [0x01, 0x00]) }
    }

    @Test func controlPoint() {
        #expect(HeartRateControlPointCommand.parse([0x01]) == .success(.resetEnergyExpended))
        #expect(HeartRateControlPointCommand.parse([0x02]) == .failure(.controlPointValueNotSupported(written: [0x02])))
        #expect(HeartRateControlPointCommand.parse([]) == .failure(.controlPointValueNotSupported(written: [])))
        #expect(HeartRateControlPointCommand.parse([0x01, 0x00]) == .failure(.controlPointValueNotSupported(written: [0x01, 0x00])))
        #expect(HeartRateControlPointError.controlPointValueNotSupported(written: [0x02]).attErrorCode == 0x80)
        #expect(HeartRateControlPointCommand.resetEnergyExpended.encoded == [0x01])
    }
}
