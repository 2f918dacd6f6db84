import Testing
@testable import Sensors

/// Each driver setting reaches the chip: register values and command codes from the datasheets'
/// bit layouts, written as literals rather than derived from the drivers' own enums.
@Suite struct DriverSettingsTests {
    @Test func tmp102ConversionRateSetsCRBits() throws {
        let clock = SimulatedSensorClock()
        let bus = SimulatedI2CBus()
        let chip = SimulatedTMP102(celsius: 21, clock: clock)
        bus.attach(chip, at: 0x48)
        let sensor = TMP102(bus: bus, clock: clock)
        // Configuration register (datasheet table "Configuration and Power-Up/Reset Formats"): power-up
        // 0x60A0; byte 2 = CR1 CR0 AL EM 0000, CR 00 = 0.25 Hz, 01 = 1 Hz, 10 = 4 Hz, 11 = 8 Hz.
        let expected: [(TMP102.ConversionRate, UInt16)] = [(.hz0_25, 0x6020), (.hz1, 0x6060), (.hz8, 0x60E0), (.hz4, 0x60A0)]
        for (rate, word) in expected {
            try sensor.configure(extendedMode: false, conversionRate: rate)
            #expect(chip.configuration == word, "\(rate.name) Hz")
        }
        // Extended mode sets EM (bit 4) beside the rate, and the reading follows the 13-bit format.
        try sensor.configure(extendedMode: true, conversionRate: .hz1)
        #expect(chip.configuration == 0x6070)
        #expect(try sensor.read().celsius == 21)
    }

    @Test func tmp102RateChangeAloneDoesNotWaitForAConversion() throws {
        let clock = SimulatedSensorClock()
        let bus = SimulatedI2CBus()
        bus.attach(SimulatedTMP102(clock: clock), at: 0x48)
        let sensor = TMP102(bus: bus, clock: clock)
        let before = clock.nowNanoseconds()
        try sensor.configure(extendedMode: false, conversionRate: .hz8)
        #expect(clock.nowNanoseconds() == before)
    }

    @Test func mcp9808ResolutionRegister() throws {
        let clock = SimulatedSensorClock()
        let bus = SimulatedI2CBus()
        let chip = SimulatedMCP9808(celsius: 20.5, clock: clock)
        bus.attach(chip, at: 0x18)
        let sensor = MCP9808(bus: bus, clock: clock)
        // Register 5-9 (0x08): bits 1-0, 00 = 0.5 °C, 01 = 0.25 °C, 10 = 0.125 °C, 11 = 0.0625 °C (power-up).
        #expect(chip.resolution == 0b11)
        let expected: [(String, UInt8)] = [("0.5", 0b00), ("0.25", 0b01), ("0.125", 0b10), ("0.0625", 0b11)]
        for (name, bits) in expected {
            let resolution = try #require(MCP9808.Resolution(name: name))
            try sensor.configure(resolution: resolution)
            #expect(chip.resolution == bits, "\(name) °C")
        }
        // Table 1-1 t_CONV (typical): 30, 65, 130 and 250 ms.
        #expect(MCP9808.Resolution.allCases.map(\.conversionMilliseconds) == [30, 65, 130, 250])
        // The first read still waits the power-up conversion (250 ms at 0.0625 °C), whatever was configured.
        try sensor.configure(resolution: .halfDegree)
        let start = clock.nowNanoseconds()
        #expect(try sensor.read().celsius == 20.5)
        #expect(clock.nowNanoseconds() - start == 250_000_000)
        #expect(MCP9808.Resolution(name: "0.1") == nil)
        // 20.5 °C with 0.5 °C resolution: 0x0148 (20.5 × 16 = 328); set 20.9375 (0x014F), read 20.5.
        chip.setTemperature(20.9375)
        #expect(try sensor.read().celsius == 20.5)
    }

    @Test func mcp9808ResolutionIsNotWrittenToAnotherChip() throws {
        let bus = SimulatedI2CBus()
        let other = SimulatedMCP9808(deviceID: 0x0500)
        bus.attach(other, at: 0x18)
        #expect(throws: SensorError.self) { try MCP9808(bus: bus, clock: SimulatedSensorClock()).configure(resolution: .halfDegree) }
        #expect(other.resolution == 0b11)
    }

    @Test func sht31RepeatabilityCommandsAndDurations() throws {
        // Datasheet table 9 (single shot, clock stretching disabled): high 0x2400, medium 0x240B,
        // low 0x2416; table 4 maximum durations 15, 6 and 4 ms.
        let expected: [(SHT31.Repeatability, UInt16, UInt64)] = [
            (.high, 0x2400, 15_000_000), (.medium, 0x240B, 6_000_000), (.low, 0x2416, 4_000_000),
        ]
        for (repeatability, command, waited) in expected {
            let clock = SimulatedSensorClock()
            let bus = SimulatedI2CBus()
            let chip = SimulatedSHT31(celsius: 22.5, relativeHumidity: 48, clock: clock)
            bus.attach(chip, at: 0x44)
            let start = clock.nowNanoseconds()
            let reading = try SHT31(bus: bus, clock: clock, repeatability: repeatability).read()
            #expect(chip.lastMeasurementCommand == command)
            #expect(clock.nowNanoseconds() - start == waited)
            #expect(abs(reading.celsius - 22.5) < 0.01)
        }
    }

    @Test func sht31HeaterCommandsSetStatusBit13() throws {
        let clock = SimulatedSensorClock()
        let bus = SimulatedI2CBus()
        let chip = SimulatedSHT31(clock: clock)
        bus.attach(chip, at: 0x44)
        let sensor = SHT31(bus: bus, clock: clock)
        // Heater on 0x306D, off 0x3066; status register bit 13 "heater status" (datasheet table 17).
        try sensor.setHeater(true)
        #expect(chip.status & 0x2000 != 0)
        #expect(try sensor.readStatus().heaterOn)
        try sensor.setHeater(false)
        #expect(chip.status & 0x2000 == 0)
    }

    @Test func sht4xPrecisionCommandsAndDurations() throws {
        // Datasheet command table: 0xFD high, 0xF6 medium, 0xE0 low precision; maximum durations
        // 8.3, 4.5 and 1.6 ms.
        let expected: [(SHT4x.Precision, UInt8, UInt64)] = [
            (.high, 0xFD, 8_300_000), (.medium, 0xF6, 4_500_000), (.low, 0xE0, 1_600_000),
        ]
        for (precision, command, waited) in expected {
            let clock = SimulatedSensorClock()
            let bus = SimulatedI2CBus()
            let chip = SimulatedSHT4x(celsius: 22.5, relativeHumidity: 48, clock: clock)
            bus.attach(chip, at: 0x44)
            let start = clock.nowNanoseconds()
            let reading = try SHT4x(bus: bus, clock: clock, precision: precision).read()
            #expect(chip.lastMeasurementCommand == command)
            #expect(clock.nowNanoseconds() - start == waited)
            #expect(abs(reading.relativeHumidity - 48) < 0.01)
        }
    }
}
