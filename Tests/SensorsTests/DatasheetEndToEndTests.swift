import Testing
@testable import Sensors

/// Chip-level end-to-end reads whose expectations come from the datasheets' examples and tables,
/// with the simulated chips loaded with raw register words (not produced by the drivers' conversions).
@Suite struct DatasheetEndToEndTests {
    /// BMP280 datasheet 8.1/8.2 (the BME280 shares T and P compensation): the published calibration
    /// words, little-endian from 0x88, then 0xA0 (reserved) and dig_H1 = 75.
    static let exampleBlock1: [UInt8] = [0x70, 0x6B, 0x43, 0x67, 0x18, 0xFC, 0x7D, 0x8E, 0x43, 0xD6, 0xD0, 0x0B, 0x27,
                                         0x0B, 0x8C, 0x00, 0xF9, 0xFF, 0x8C, 0x3C, 0xF8, 0xC6, 0x70, 0x17, 0x00, 0x4B]
    /// 0xE1...0xE7: dig_H2 = 362, dig_H3 = 0, dig_H4 = 324 (0xE4 = 0x14, 0xE5[3:0] = 4),
    /// dig_H5 = 50 (0xE6 = 0x03, 0xE5[7:4] = 2), dig_H6 = 30.
    static let exampleBlock2: [UInt8] = [0x6A, 0x01, 0x00, 0x14, 0x24, 0x03, 0x1E]

    @Test func bme280DatasheetExample() throws {
        let clock = SimulatedSensorClock()
        let bus = SimulatedI2CBus()
        let chip = SimulatedBME280(clock: clock)
        chip.setRegisters(Self.exampleBlock1, at: 0x88)
        chip.setRegisters(Self.exampleBlock2, at: 0xE1)
        chip.setADC(temperature: 519_888, pressure: 415_148, humidity: 30_000)
        bus.attach(chip, at: 0x76)
        let reading = try BME280(bus: bus, clock: clock).read()
        // Datasheet 8.2: T = 25.08 °C; p = 100653 Pa (32-bit integer), 100653.27 Pa (double).
        #expect(reading.celsius == 25.08)
        let pascals = try #require(reading.pascals)
        #expect(Int(pascals) == 100_653)
        #expect(abs(pascals - 100_653.27) < 0.05)
        // Datasheet 4.2.3 double-precision humidity formula for adc_H = 30000, t_fine = 128422: 51.083 %RH.
        #expect(abs(try #require(reading.relativeHumidity) - 51.083) < 0.05)
    }

    @Test(arguments: [
        // TMP102 datasheet table 7-1 (12-bit format): digital output << 4 in the register word.
        (UInt16(0x7FF0), 127.9375), (0x6400, 100), (0x4B00, 75), (0x1900, 25), (0x0040, 0.25),
        (0xFFC0, -0.25), (0xE700, -25), (0xC900, -55),
    ])
    func tmp102DatasheetTable(word: UInt16, celsius: Double) throws {
        let clock = SimulatedSensorClock()
        let bus = SimulatedI2CBus()
        let chip = SimulatedTMP102(clock: clock)
        chip.setRawTemperature(word)
        bus.attach(chip, at: 0x48)
        #expect(try TMP102(bus: bus, clock: clock).read().celsius == celsius)
    }

    @Test(arguments: [
        // MCP9808 datasheet register 5-4 / equation 5-1: 13-bit two's complement in 1/16 °C, bits
        // 15...13 are the Tcrit/Tupper/Tlower flags.
        (UInt16(0x0190), 25.0), (0xC190, 25.0), (0x01B4, 27.25), (0x1FFF, -0.0625), (0x1E70, -25), (0x1C90, -55),
    ])
    func mcp9808DatasheetRegister(word: UInt16, celsius: Double) throws {
        let clock = SimulatedSensorClock()
        let bus = SimulatedI2CBus()
        let chip = SimulatedMCP9808(clock: clock)
        chip.setRawTemperature(word)
        bus.attach(chip, at: 0x18)
        #expect(try MCP9808(bus: bus, clock: clock).read().celsius == celsius)
    }

    @Test(arguments: [
        // DS18B20 datasheet table 1 (temperature/data relationship); byte 6 is 0x10 minus the
        // fraction bits as real parts show; CRCs computed with the datasheet's X^8+X^5+X^4+1.
        ("91 01 4b 46 7f ff 0f 10 25 : crc=25 YES\n91 01 4b 46 7f ff 0f 10 25 t=25062\n", 25.0625),
        ("5e ff 4b 46 7f ff 02 10 b6 : crc=b6 YES\n5e ff 4b 46 7f ff 02 10 b6 t=-10125\n", -10.125),
        ("90 fc 4b 46 7f ff 10 10 ee : crc=ee YES\n90 fc 4b 46 7f ff 10 10 ee t=-55000\n", -55.0),
        ("d0 07 4b 46 7f ff 10 10 55 : crc=55 YES\nd0 07 4b 46 7f ff 10 10 55 t=125000\n", 125.0),
        ("08 00 4b 46 7f ff 08 10 d9 : crc=d9 YES\n08 00 4b 46 7f ff 08 10 d9 t=500\n", 0.5),
        // A converted 85 °C (byte 6 = 0x10) is a real reading, unlike the power-on value below.
        ("50 05 4b 46 7f ff 10 10 bd : crc=bd YES\n50 05 4b 46 7f ff 10 10 bd t=85000\n", 85.0),
    ])
    func ds18b20DatasheetTable(w1Slave: String, celsius: Double) throws {
        #expect(try DS18B20.parse(w1Slave: w1Slave).celsius == celsius)
    }

    @Test func sht31DatasheetFormulas() throws {
        let clock = SimulatedSensorClock()
        let bus = SimulatedI2CBus()
        // 25 °C and 50 %RH encode as the words 0x6666 and 0x8000 (rounded).
        bus.attach(SimulatedSHT31(celsius: 25, relativeHumidity: 50, clock: clock), at: 0x44)
        let reading = try SHT31(bus: bus, clock: clock).read()
        // SHT3x datasheet 4.13: T = -45 + 175 * S_T / (2^16 - 1), RH = 100 * S_RH / (2^16 - 1).
        #expect(abs(reading.celsius - (-45 + 175 * 26_214 / 65_535.0)) < 1e-9)
        #expect(abs(reading.relativeHumidity - 100 * 32_768 / 65_535.0) < 1e-9)
    }

    @Test func max17048DatasheetUnits() throws {
        let bus = SimulatedI2CBus()
        let chip = SimulatedMAX17048()
        bus.attach(chip, at: 0x36)
        // VCELL 78.125 µV/cell: 0xCB20 = 52000 LSB = 4.0625 V. SOC 1/256 %: 0x5A80 = 90.5 %.
        // CRATE 0.208 %/h: 0xFFF6 = -10 LSB = -2.08 %/h.
        chip.setRaw(vcell: 0xCB20, soc: 0x5A80, crate: 0xFFF6)
        let reading = try MAX17048(bus: bus).read()
        #expect(reading.cellVolts == 4.0625)
        #expect(reading.stateOfChargePercent == 90.5)
        #expect(abs(reading.chargeRatePercentPerHour - -2.08) < 1e-9)
    }

    @Test(arguments: [
        // TMP117 datasheet table 7-1: 7.8125 m°C per LSB, two's complement.
        (UInt16(0x0C80), 25.0), (0x3200, 100), (0xF380, -25), (0x0001, 0.0078125), (0xE480, -55),
    ])
    func tmp117DatasheetTable(word: UInt16, celsius: Double) throws {
        let clock = SimulatedSensorClock()
        let bus = SimulatedI2CBus()
        let chip = SimulatedTMP117(clock: clock)
        chip.setRawTemperature(word)
        bus.attach(chip, at: 0x48)
        let sensor = TMP117(bus: bus, clock: clock)
        try sensor.configure()
        #expect(try sensor.read().celsius == celsius)
    }

    @Test(arguments: [
        // MAX30205 datasheet, temperature register: 0.00390625 °C per LSB, two's complement; the
        // extended format adds 64 °C.
        (UInt16(0x2580), MAX30205.DataFormat.normal, 37.5), (0x1900, .normal, 25), (0xFFFF, .normal, -0.00390625),
        (0xE580, .extended, 37.5), (0x0000, .extended, 64),
    ])
    func max30205DatasheetFormats(word: UInt16, format: MAX30205.DataFormat, celsius: Double) throws {
        let clock = SimulatedSensorClock()
        let bus = SimulatedI2CBus()
        let chip = SimulatedMAX30205(clock: clock)
        chip.setRawTemperature(word)
        bus.attach(chip, at: 0x48)
        let sensor = MAX30205(bus: bus, settings: .init(dataFormat: format), clock: clock)
        try sensor.configure()
        #expect(try sensor.read().celsius == celsius)
    }

    @Test func mlx90614DatasheetExample() throws {
        let bus = SimulatedI2CBus()
        let chip = SimulatedMLX90614()
        // Datasheet 8.7.2: T = word × 0.02 K; 0x3AD2 = 15058 → 301.16 K = 28.01 °C (the 8.4.3.1 read
        // example's data); 0x3A3C = 14908 → 298.16 K = 25.01 °C.
        chip.setRawWords(object: 0x3AD2, ambient: 0x3A3C)
        bus.attach(chip, at: 0x5A)
        let reading = try MLX90614(bus: bus).read()
        #expect(abs(reading.objectCelsius - 28.01) < 1e-9)
        #expect(abs(reading.ambientCelsius - 25.01) < 1e-9)
    }

    @Test func aht20DatasheetFormulas() throws {
        let clock = SimulatedSensorClock()
        let bus = SimulatedI2CBus()
        let chip = SimulatedAHT20(clock: clock)
        // Datasheet 6.1: RH = S_RH / 2^20 × 100 %, T = S_T / 2^20 × 200 − 50 °C.
        chip.setRawSignals(humidity: 0x80000, temperature: 0x60000)
        bus.attach(chip, at: 0x38)
        let reading = try AHT20(bus: bus, clock: clock).read()
        #expect(reading.relativeHumidity == 50)
        #expect(reading.celsius == 25)
    }

    @Test func shtc3DatasheetFormulas() throws {
        let clock = SimulatedSensorClock()
        let bus = SimulatedI2CBus()
        let chip = SimulatedSHTC3(clock: clock)
        // Datasheet 5.11: T = −45 + 175 × S_T / 2^16, RH = 100 × S_RH / 2^16.
        chip.setRawWords(temperature: 0x6000, humidity: 0x4000)
        bus.attach(chip, at: 0x70)
        let reading = try SHTC3(bus: bus, clock: clock).read()
        #expect(reading.celsius == -45 + 175 * 0.375)
        #expect(reading.relativeHumidity == 25)
    }
}
