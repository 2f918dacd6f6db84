import Testing
@testable import Sensors

/// A fault must never look like a measurement.
@Suite struct FaultsAreErrorsTests {
    @Test func bme280DisabledChannelsAreAbsent() throws {
        let clock = SimulatedSensorClock()
        let bus = SimulatedI2CBus()
        let chip = SimulatedBME280(clock: clock)
        chip.setEnvironment(celsius: 20, pascals: 100_000, relativeHumidity: 50)
        bus.attach(chip, at: 0x76)
        let reading = try BME280(bus: bus, clock: clock, pressure: .skipped, humidity: .skipped).read()
        #expect(reading.pascals == nil)
        #expect(reading.relativeHumidity == nil)
        #expect(abs(reading.celsius - 20) < 0.01)
    }

    @Test func bme280ImplausibleCalibrationIsAnError() throws {
        let clock = SimulatedSensorClock()
        let bus = SimulatedI2CBus()
        let chip = SimulatedBME280(clock: clock)
        bus.attach(chip, at: 0x76)
        let sensor = BME280(bus: bus, clock: clock)
        let cases: [(prepare: () -> Void, problem: String)] = [
            ({ chip.fillCalibration(with: 0x00) }, "every byte reads 0x00"),
            ({ chip.fillCalibration(with: 0xFF) }, "every byte reads 0xFF"),
            ({ chip.setRegisters(DatasheetEndToEndTests.exampleBlock1, at: 0x88); chip.setRegisters([0, 0], at: 0x88) }, "dig_T1 is 0"),
            ({ chip.setRegisters(DatasheetEndToEndTests.exampleBlock1, at: 0x88); chip.setRegisters([0, 0], at: 0x8E) }, "dig_P1 is 0"),
        ]
        for (prepare, problem) in cases {
            prepare()
            #expect(throws: SensorError.invalidData(
                sensor: "BME280", reason: "implausible calibration: \(problem); the NVM read failed or this is not a working BME280")) {
                try sensor.read()
            }
        }
    }

    @Test func bme280WaitsForTheNVMCopy() throws {
        let clock = SimulatedSensorClock()
        let bus = SimulatedI2CBus()
        let chip = SimulatedBME280(clock: clock)  // just powered up: im_update for 2 ms
        chip.setEnvironment(celsius: 21, pascals: 100_000, relativeHumidity: 40)
        bus.attach(chip, at: 0x76)
        let sensor = BME280(bus: bus, clock: clock)
        // Read at once, the trimming registers would still be blank (an implausible-calibration error).
        #expect(abs(try sensor.read().celsius - 21) < 0.01)
        chip.copyNVM(forMilliseconds: 10)
        #expect(throws: SensorError.conversionTimeout(sensor: "BME280", waitedMilliseconds: 2)) { try sensor.read() }
        clock.advance(milliseconds: 10)
        #expect(abs(try sensor.read().celsius - 21) < 0.01)
    }

    @Test func bme280WritesItsIIRFilter() throws {
        let clock = SimulatedSensorClock()
        let bus = SimulatedI2CBus()
        let chip = SimulatedBME280(clock: clock)
        chip.setEnvironment(celsius: 21, pascals: 100_000, relativeHumidity: 40)
        bus.attach(chip, at: 0x76)
        chip.setConfigRegister(0x10)  // filter 16 left by another program
        _ = try BME280(bus: bus, clock: clock).read()
        #expect(chip.configRegister == 0x00)
        // Datasheet 5.4.6: filter[4:2] = 100 for coefficient 16, 010 for 4.
        _ = try BME280(bus: bus, clock: clock, filter: .x16).read()
        #expect(chip.configRegister == 0x10)
        _ = try BME280(bus: bus, clock: clock, filter: .x4).read()
        #expect(chip.configRegister == 0x08)
        #expect(BME280.FilterCoefficient.allCases.map(\.name) == ["off", "2", "4", "8", "16"])
        #expect(BME280.FilterCoefficient(name: "8") == .x8)
        #expect(BME280.FilterCoefficient(name: "3") == nil)
    }

    @Test func temperatureBeforeTheFirstConversionIsNotZero() throws {
        let clock = SimulatedSensorClock()
        let bus = SimulatedI2CBus()
        let tmp102 = SimulatedTMP102(celsius: 23.5, clock: clock)  // just powered up: register reads 0x0000
        let mcp9808 = SimulatedMCP9808(celsius: 19.25, clock: clock)
        bus.attach(tmp102, at: 0x48)
        bus.attach(mcp9808, at: 0x18)
        // A raw read now shows the power-up 0x0000 the drivers must not report as 0.00 °C.
        #expect(try bus.readBigEndianWord(address: 0x48, command: 0x00) == 0x0000)
        #expect(try bus.readBigEndianWord(address: 0x18, command: 0x05) == 0x0000)
        let start = clock.nowNanoseconds()
        #expect(try TMP102(bus: bus, clock: clock).read().celsius == 23.5)
        #expect(clock.nowNanoseconds() - start == 35_000_000)  // waited the datasheet maximum once
        #expect(try MCP9808(bus: bus, clock: clock).read().celsius == 19.25)
        // A TMP102 reconfigured (extended mode) right after a power cycle still waits out the conversion.
        tmp102.powerCycle()
        let sensor = TMP102(bus: bus, clock: clock)
        try sensor.configure(extendedMode: true)
        #expect(try sensor.read().celsius == 23.5)
        // Later reads do not wait again.
        let later = clock.nowNanoseconds()
        _ = try sensor.read()
        #expect(clock.nowNanoseconds() == later)
    }

    @Test func ds18b20Faults() throws {
        // Datasheet figure 9 power-on scratchpad: 85 °C with byte 6 = 0x0C; no conversion ran.
        let powerOn = "50 05 4b 46 7f ff 0c 10 1c : crc=1c YES\n50 05 4b 46 7f ff 0c 10 1c t=85000\n"
        #expect(throws: SensorError.invalidData(
            sensor: "DS18B20", reason: "85 °C power-on reset value: the conversion did not run; check power (avoid parasite mode)")) {
            try DS18B20.parse(w1Slave: powerOn)
        }
        // A CRC error names the byte received (scratchpad[8]) and the one computed from bytes 0...7.
        let corrupted = "91 01 4b 46 7f ff 0f 10 26 : crc=26 NO\n91 01 4b 46 7f ff 0f 10 26 t=25062\n"
        #expect(throws: SensorError.crcMismatch(sensor: "DS18B20", expected: 0x25, received: 0x26)) {
            try DS18B20.parse(w1Slave: corrupted)
        }
        // Linux 5.9+: an empty w1_slave means the probe did not answer.
        do {
            _ = try DS18B20.parse(w1Slave: "")
            Issue.record("an empty w1_slave was accepted")
        } catch {
            guard case let .noSignal(sensor, cause) = error else { Issue.record("got \(error)"); return }
            #expect(sensor == "DS18B20")
            #expect(cause == .probeSilent)
            #expect(error.description.contains("did not answer") && error.description.contains("wiring") && error.description.contains("pull-up"))
        }
        // The simulated tree produces what those kernels produce.
        let tree = try SimulatedOneWireTree()
        try tree.setTemperature(id: "28-000001", celsius: 21.5, crcOK: false)
        #expect(try tree.bus.read(id: "28-000001", attribute: "w1_slave") == "")
        try tree.setPowerOnScratchpad(id: "28-000002")
        #expect(throws: SensorError.self) { try DS18B20(bus: tree.bus, id: "28-000002").read() }
        try tree.setTemperature(id: "28-000003", celsius: 85)
        #expect(try DS18B20(bus: tree.bus, id: "28-000003").read().celsius == 85)
    }

    @Test func max17048ClampsAndReportsResets() throws {
        let bus = SimulatedI2CBus()
        let chip = SimulatedMAX17048()
        bus.attach(chip, at: 0x36)
        let gauge = MAX17048(bus: bus)
        // Power-up: STATUS.RI is set; the first reading reports it and the driver clears it.
        #expect(chip.status & 0x0100 != 0)
        #expect(try gauge.read().resetDetected)
        #expect(chip.status & 0x0100 == 0)
        #expect(try !gauge.read().resetDetected)
        chip.reset()
        #expect(try gauge.read().resetDetected)
        // Near full the SOC register can pass 100 % (0x6480 = 100.5 %): a level stays 0...100.
        chip.setRaw(vcell: 0xD480, soc: 0x6480)
        #expect(try gauge.read().stateOfChargePercent == 100)
    }

    @Test func missedPulseIsRejectedLikeAnEarlyOne() throws {
        let clock = SimulatedSensorClock()
        let chip = SimulatedGPIOChip(lineNames: ["GPIO0"])
        let line = try chip.simulatedLine(offset: 0)
        let receiver = GPIOPulseReceiver(line: line, clock: clock)
        try receiver.start()
        // The fifth beat is missed: 1600 ms between pulses is two beats, not one slow one.
        line.emit(PulseTrain(rrIntervalsMilliseconds: [800, 800, 800, 800, 1600, 800, 800], start: 0)
            .edges(originNanoseconds: clock.nowNanoseconds()))
        clock.advance(milliseconds: 6_500)
        let reading = try receiver.reading()
        #expect(reading.rrIntervalsMilliseconds.map { $0.rounded() } == [800, 800, 800, 800, 800, 800])
        #expect(abs((reading.beatsPerMinute ?? 0) - 75) < 0.01)
    }

    @Test func slowerRhythmIsLearnedAfterThreeLongIntervals() throws {
        let clock = SimulatedSensorClock()
        let chip = SimulatedGPIOChip(lineNames: ["GPIO0"])
        let line = try chip.simulatedLine(offset: 0)
        let receiver = GPIOPulseReceiver(line: line, clock: clock)
        try receiver.start()
        line.emit(PulseTrain(rrIntervalsMilliseconds: [600, 600, 600, 1000, 1000, 1000, 1000, 1000, 1000, 1000], start: 0)
            .edges(originNanoseconds: clock.nowNanoseconds()))
        clock.advance(milliseconds: 9_000)
        let intervals = try receiver.reading().rrIntervalsMilliseconds.map { $0.rounded() }
        #expect(intervals.prefix(3) == [600, 600, 600])
        #expect(intervals.suffix(4) == [1000, 1000, 1000, 1000])
    }
}
