import Testing
@testable import Sensors

@Suite struct AHT20Tests {
    func make(calibrated: Bool = true) -> (SimulatedSensorClock, SimulatedI2CBus, SimulatedAHT20, AHT20) {
        let clock = SimulatedSensorClock()
        let bus = SimulatedI2CBus()
        let chip = SimulatedAHT20(celsius: 23.5, relativeHumidity: 41, calibrated: calibrated, clock: clock)
        bus.attach(chip, at: 0x38)
        return (clock, bus, chip, AHT20(bus: bus, clock: clock))
    }

    @Test func crcAndFormulasFromDatasheet() throws {
        // CRC-8 poly 0x31 init 0xFF (AHT20 datasheet 5.4 step 4, the Sensirion CRC): 0xBEEF → 0x92.
        #expect(CRC8.sensirion([0xBE, 0xEF]) == 0x92)
        // Datasheet 6.1/6.2: RH = S_RH / 2^20 × 100 %, T = S_T / 2^20 × 200 − 50. Half scale on both:
        // S_RH = S_T = 0x80000 → 50 %RH and 50 °C. CRC of the six bytes computed by hand: 0xB9.
        let reading = try AHT20.decode([0x1C, 0x80, 0x00, 0x08, 0x00, 0x00, 0xB9])
        #expect(reading.relativeHumidity == 50)
        #expect(reading.celsius == 50)
        #expect(throws: SensorError.crcMismatch(sensor: "AHT20", expected: 0xB9, received: 0xB8)) {
            try AHT20.decode([0x1C, 0x80, 0x00, 0x08, 0x00, 0x00, 0xB8])
        }
        #expect(throws: SensorError.self) { try AHT20.decode([0x1C, 0x80]) }
    }

    @Test func measuresAfterEightyMilliseconds() throws {
        let (clock, _, _, sensor) = make()
        let before = clock.nowNanoseconds()
        let reading = try sensor.read()
        #expect(clock.nowNanoseconds() - before == 80_000_000)
        #expect(abs(reading.celsius - 23.5) < 0.001)
        #expect(abs(reading.relativeHumidity - 41) < 0.001)
    }

    @Test func initialisesAnUncalibratedChip() throws {
        let (_, _, chip, sensor) = make(calibrated: false)
        #expect(!chip.isCalibrated)
        _ = try sensor.read()
        #expect(chip.isCalibrated)
        let (_, _, stubborn, refused) = make(calibrated: false)
        stubborn.ignoreInitialization(true)
        #expect(throws: SensorError.self) { try refused.read() }
    }

    @Test func busyCrcAndAbsentChip() throws {
        let (_, bus, chip, sensor) = make()
        chip.stickBusy(true)
        #expect(throws: SensorError.conversionTimeout(sensor: "AHT20", waitedMilliseconds: 100)) { try sensor.read() }
        chip.stickBusy(false)
        chip.corruptCRC(true)
        #expect(throws: SensorError.self) { try sensor.read() }
        bus.unplug(address: 0x38)
        #expect(throws: SensorError.bus(.noDevice(bus: 1, address: 0x38))) { try sensor.read() }
    }
}

@Suite struct SHTC3Tests {
    func make(id: UInt16 = 0x0887) -> (SimulatedSensorClock, SimulatedI2CBus, SimulatedSHTC3, SHTC3) {
        let clock = SimulatedSensorClock()
        let bus = SimulatedI2CBus()
        let chip = SimulatedSHTC3(celsius: 24.25, relativeHumidity: 38.5, id: id, clock: clock)
        bus.attach(chip, at: 0x70)
        return (clock, bus, chip, SHTC3(bus: bus, clock: clock))
    }

    @Test func formulasFromDatasheet() throws {
        // SHTC3 datasheet 5.11: T = −45 + 175 × S_T / 2^16, RH = 100 × S_RH / 2^16.
        #expect(SHTC3.celsius(0x8000) == 42.5)
        #expect(SHTC3.humidity(0x8000) == 50)
        #expect(SHTC3.celsius(0x0000) == -45)
        // Frames as the chip sends them, CRCs computed by hand (0x8000 → 0xA2, 0x6666 → 0x93).
        let words = try SensirionWords.decode([0x80, 0x00, 0xA2, 0x66, 0x66, 0x93], words: 2, sensor: "SHTC3")
        #expect(words == [0x8000, 0x6666])
    }

    @Test func wakesMeasuresAndSleeps() throws {
        let (clock, _, chip, sensor) = make()
        #expect(chip.isAsleep)
        try sensor.verifyIdentity()
        let before = clock.nowNanoseconds()
        let reading = try sensor.read()
        // Wake-up 240 µs plus the 12.1 ms maximum measurement time (datasheet Table 5).
        #expect(clock.nowNanoseconds() - before == 12_340_000)
        #expect(abs(reading.celsius - 24.25) < 0.002)
        #expect(abs(reading.relativeHumidity - 38.5) < 0.002)
        #expect(chip.isAsleep)
    }

    @Test func wrongIDCrcAndAbsentChip() throws {
        let (_, _, _, sht) = make(id: 0x4B5A)
        #expect(throws: SensorError.wrongChip(sensor: "SHTC3", expected: "ID with bits 11 and 5:0 = 1 and 000111", found: "ID 0x4b5a")) {
            try sht.verifyIdentity()
        }
        let (_, bus, chip, sensor) = make()
        chip.corruptCRC(true)
        #expect(throws: SensorError.self) { try sensor.read() }
        bus.unplug(address: 0x70)
        #expect(throws: SensorError.bus(.noDevice(bus: 1, address: 0x70))) { try sensor.read() }
    }
}
