import Testing
@testable import Sensors

@Suite struct TMP117Tests {
    func make(celsius: Double = 36.6, deviceID: UInt16 = TMP117.deviceID, settings: TMP117.Settings = TMP117.Settings())
        -> (SimulatedSensorClock, SimulatedI2CBus, SimulatedTMP117, TMP117) {
        let clock = SimulatedSensorClock()
        let bus = SimulatedI2CBus()
        let chip = SimulatedTMP117(celsius: celsius, deviceID: deviceID, clock: clock)
        bus.attach(chip, at: 0x48)
        return (clock, bus, chip, TMP117(bus: bus, settings: settings, clock: clock))
    }

    @Test func temperatureDataFormatFromDatasheet() {
        // TMP117 datasheet Table 7-1 (temperature data format): 7.8125 m°C per LSB, two's complement.
        #expect(TMP117.celsius(raw: 0x4B00) == 150)
        #expect(TMP117.celsius(raw: 0x3200) == 100)
        #expect(TMP117.celsius(raw: 0x0C80) == 25)
        #expect(TMP117.celsius(raw: 0x0001) == 0.0078125)
        #expect(TMP117.celsius(raw: 0x0000) == 0)
        #expect(TMP117.celsius(raw: 0xFFFF) == -0.0078125)
        #expect(TMP117.celsius(raw: 0xF380) == -25)
        #expect(TMP117.celsius(raw: 0xEC00) == -40)
        #expect(TMP117.celsius(raw: 0xE480) == -55)
        #expect(TMP117.celsius(raw: 0x8000) == -256)
        #expect(TMP117.raw(celsius: -25) == 0xF380)
    }

    @Test func configurationRegisterFieldsFromDatasheet() {
        // Datasheet 7.6.1.2: power-on 0x0220 = continuous, CONV 100 (1 s), AVG 01 (8).
        #expect(TMP117.Settings().register == 0x0220)
        // CONV 000, AVG 00: 15.5 ms without averaging; MOD 01 (shutdown) between one-shots.
        #expect(TMP117.Settings(mode: .oneShot, conversionCycle: .ms15_5, averaging: .x1).register == 0x0400)
        #expect(TMP117.Settings(conversionCycle: .s16, averaging: .x64).register == 0x0380 | 0x0060)
    }

    @Test func waitsForTheFirstConversionAfterReset() throws {
        let (clock, _, chip, sensor) = make(celsius: 37.25)
        // Straight after power-up the register holds −256 °C, which is not a reading.
        #expect(throws: SensorError.self) { try sensor.read() }
        let before = clock.nowNanoseconds()
        try sensor.configure()
        // 8 averages take 125 ms (Table 7-7); the driver waits that with its margin.
        #expect(clock.nowNanoseconds() - before >= 125_000_000)
        #expect(try sensor.read().celsius == 37.25)
        chip.setTemperature(38.1)
        clock.advance(milliseconds: 1000)
        #expect(try sensor.read().celsius == 38.1015625)  // 4877 steps of 7.8125 m°C
    }

    @Test func writesConversionCycleAndAveraging() throws {
        let (_, _, chip, sensor) = make(settings: TMP117.Settings(conversionCycle: .ms125, averaging: .x1))
        try sensor.configure()
        #expect(chip.configuration & 0x0FE0 == 0x0080)  // CONV 001, AVG 00
        #expect(try sensor.read().celsius == 36.6015625)
    }

    @Test func oneShotWaitsForDataReady() throws {
        let (clock, _, chip, sensor) = make(celsius: 36.5, settings: TMP117.Settings(mode: .oneShot, averaging: .x32))
        try sensor.configure()
        #expect(chip.configuration & TMP117.modeMask == TMP117.shutdownMode)
        let before = clock.nowNanoseconds()
        #expect(try sensor.read().celsius == 36.5)
        // 32 averages take 500 ms.
        #expect(clock.nowNanoseconds() - before >= 500_000_000)
        #expect(chip.configuration & TMP117.modeMask == TMP117.shutdownMode)
    }

    @Test func aBrownOutInOneShotModeIsAResetNotATimeout() throws {
        let (_, _, chip, sensor) = make(celsius: 36.5, settings: TMP117.Settings(mode: .oneShot, averaging: .x1))
        try sensor.configure()
        #expect(try sensor.read().celsius == 36.5)
        // Power-on: continuous conversions with 8 averages (0x0220), not our one-shot with 1.
        chip.powerCycle()
        #expect(throws: SensorError.deviceReset(sensor: "TMP117")) { try sensor.read() }
        try sensor.configure()
        #expect(try sensor.read().celsius == 36.5)
    }

    @Test func refusesImpossibleSettingsAndWrongChips() throws {
        let (_, bus, _, _) = make()
        let tooFast = TMP117(bus: bus, settings: TMP117.Settings(conversionCycle: .ms125, averaging: .x64))
        #expect(throws: SensorError.self) { try tooFast.configure() }
        #expect(bus.transactionCount == 0)
        // A TMP102 has no register 0x0F worth trusting; a part with another ID is refused.
        let (_, _, _, other) = make(deviceID: 0x0119)
        #expect(throws: SensorError.wrongChip(sensor: "TMP117", expected: "device ID 0x117", found: "device ID 0x119")) {
            try other.configure()
        }
    }

    @Test func resetShutdownAndEEPROMBusy() throws {
        let (_, _, chip, sensor) = make(settings: TMP117.Settings(averaging: .x32))
        try sensor.configure()
        _ = try sensor.read()
        chip.powerCycle()
        // Back at power-on defaults (AVG 8): the driver asks to be configured again.
        #expect(throws: SensorError.deviceReset(sensor: "TMP117")) { try sensor.read() }
        try sensor.configure()
        _ = try sensor.read()
        chip.setEEPROMBusy(true)
        #expect(throws: SensorError.conversionTimeout(sensor: "TMP117 (EEPROM busy)", waitedMilliseconds: 7)) { try sensor.read() }
    }
}

@Suite struct MAX30205Tests {
    func make(celsius: Double = 37, settings: MAX30205.Settings = MAX30205.Settings())
        -> (SimulatedSensorClock, SimulatedI2CBus, SimulatedMAX30205, MAX30205) {
        let clock = SimulatedSensorClock()
        let bus = SimulatedI2CBus()
        let chip = SimulatedMAX30205(celsius: celsius, clock: clock)
        bus.attach(chip, at: 0x48)
        return (clock, bus, chip, MAX30205(bus: bus, settings: settings, clock: clock))
    }

    @Test func temperatureFormatsFromDatasheet() {
        // MAX30205 datasheet, temperature register table: 0.00390625 °C per LSB; extended adds 64 °C.
        #expect(MAX30205.celsius(raw: 0x7FFF, format: .normal) == 127.99609375)
        #expect(MAX30205.celsius(raw: 0x2580, format: .normal) == 37.5)
        #expect(MAX30205.celsius(raw: 0x1900, format: .normal) == 25)
        #expect(MAX30205.celsius(raw: 0x0001, format: .normal) == 0.00390625)
        #expect(MAX30205.celsius(raw: 0xFFFF, format: .normal) == -0.00390625)
        #expect(MAX30205.celsius(raw: 0x8000, format: .normal) == -128)
        #expect(MAX30205.celsius(raw: 0x0000, format: .extended) == 64)
        #expect(MAX30205.celsius(raw: 0x8000, format: .extended) == -64)
        #expect(MAX30205.celsius(raw: 0x7FFF, format: .extended) == 191.99609375)
        #expect(MAX30205.raw(celsius: 37.5, format: .extended) == 0xE580)
    }

    @Test func continuousNormalAndExtended() throws {
        let (clock, _, chip, sensor) = make(celsius: 36.75)
        try sensor.configure()
        clock.advance(milliseconds: 50)
        #expect(try sensor.read().celsius == 36.75)
        let (extendedClock, _, extendedChip, extended) = make(celsius: 38.5, settings: MAX30205.Settings(dataFormat: .extended))
        try extended.configure()
        #expect(extendedChip.configuration & MAX30205.extendedFormatBit != 0)
        extendedClock.advance(milliseconds: 50)
        #expect(try extended.read().celsius == 38.5)
        _ = chip
    }

    @Test func oneShotConvertsFromShutdown() throws {
        let (clock, _, chip, sensor) = make(celsius: 37.125, settings: MAX30205.Settings(mode: .oneShot))
        try sensor.configure()
        #expect(chip.configuration & MAX30205.shutdownBit != 0)
        let before = clock.nowNanoseconds()
        #expect(try sensor.read().celsius == 37.125)
        #expect(clock.nowNanoseconds() - before >= 50_000_000)
        // ONE-SHOT cleared itself; the chip is back in shutdown.
        #expect(chip.configuration == MAX30205.shutdownBit)
    }

    /// With the power-on settings (continuous, normal) a brown-out changes no configuration bit and
    /// the power-on temperature 0x0000 reads as 0.00 °C: the T_HYST marker must catch it.
    @Test func aBrownOutWithPowerOnSettingsIsNotReadAsZeroDegrees() throws {
        let (clock, _, chip, sensor) = make(celsius: 36.75)
        try sensor.configure()
        clock.advance(milliseconds: 50)
        #expect(try sensor.read().celsius == 36.75)
        chip.powerCycle()
        #expect(throws: SensorError.deviceReset(sensor: "MAX30205")) { try sensor.read() }
        try sensor.configure()
        #expect(try sensor.read().celsius == 36.75)
    }

    @Test func faults() throws {
        let (clock, bus, chip, sensor) = make(celsius: 37, settings: MAX30205.Settings(dataFormat: .extended))
        try sensor.configure()
        clock.advance(milliseconds: 50)
        _ = try sensor.read()
        chip.powerCycle()
        #expect(throws: SensorError.deviceReset(sensor: "MAX30205")) { try sensor.read() }
        let (_, _, plainChip, plain) = make()
        try plain.configure()
        plainChip.setShutdown(true)
        #expect(throws: SensorError.shutDown(sensor: "MAX30205", bit: "SHUTDOWN")) { try plain.read() }
        // No ID register: a register reading −100 °C is outside the chip's range and refused.
        let (hotClock, _, _, wrongFormat) = make(celsius: -100, settings: MAX30205.Settings(dataFormat: .normal))
        try wrongFormat.configure()
        hotClock.advance(milliseconds: 50)
        #expect(throws: SensorError.invalidData(sensor: "MAX30205", reason: "-100.0 °C is outside the chip's −40…125 °C range: the MAX30205 has no ID register, "
                                                + "so check that the chip at 0x48 is a MAX30205 and its data-format setting")) { try wrongFormat.read() }
        bus.unplug(address: 0x48)
        #expect(throws: SensorError.bus(.noDevice(bus: 1, address: 0x48))) { try sensor.read() }
    }
}

@Suite struct MLX90614Tests {
    @Test func pecFromDatasheetExample() {
        // MLX90614 datasheet 8.4.3.1 (read word example): SA 0x5A, command 0x07, data 0x3AD2, PEC 0x30;
        // SMBus CRC-8 (x^8+x^2+x+1) over 0xB4 0x07 0xB5 0xD2 0x3A.
        #expect(CRC8.smbusPEC([0xB4, 0x07, 0xB5, 0xD2, 0x3A]) == 0x30)
        #expect(MLX90614.pec(address: 0x5A, command: 0x07, lsb: 0xD2, msb: 0x3A) == 0x30)
        // 0x3AD2 × 0.02 K = 301.16 K = 28.01 °C (datasheet 8.7.2).
        #expect(abs(MLX90614.celsius(raw: 0x3AD2) - 28.01) < 1e-9)
    }

    @Test func readsObjectAndAmbient() throws {
        let bus = SimulatedI2CBus()
        bus.attach(SimulatedMLX90614(objectCelsius: 36.49, ambientCelsius: 22.99), at: 0x5A)
        let reading = try MLX90614(bus: bus).read()
        // 0.02 K steps: 309.64 K and 296.14 K.
        #expect(abs(reading.objectCelsius - 36.49) < 0.011)
        #expect(abs(reading.ambientCelsius - 22.99) < 0.011)
    }

    @Test func pecMismatchErrorFlagAndAddress() throws {
        let bus = SimulatedI2CBus()
        let chip = SimulatedMLX90614(objectCelsius: 28.01, ambientCelsius: 25)
        bus.attach(chip, at: 0x5A)
        chip.corruptPEC(true)
        do {
            _ = try MLX90614(bus: bus).read()
            Issue.record("a corrupted PEC was accepted")
        } catch {
            guard case let .crcMismatch(sensor, expected, received) = error else { Issue.record("\(error)"); return }
            #expect(sensor == "MLX90614")
            #expect(expected ^ received == 0xFF)
        }
        chip.corruptPEC(false)
        chip.flagObjectError(true)
        #expect(throws: SensorError.self) { try MLX90614(bus: bus).read() }
        // A chip reprogrammed to 0x5B computes its PEC over 0xB6/0xB7: the driver must use the same address.
        let moved = SimulatedMLX90614(objectCelsius: 30, ambientCelsius: 20, address: 0x5B)
        bus.attach(moved, at: 0x5B)
        #expect(abs(try MLX90614(bus: bus, address: 0x5B).read().objectCelsius - 30) < 0.011)
    }
}
