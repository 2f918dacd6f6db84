import Testing
@testable import Sensors

/// The HDC1080 against its datasheet (SNAS672) and its simulated chip.
@Suite struct HDC1080Tests {
    /// Equations 1 and 2 (8.6.1, 8.6.2) at the ends and in the middle of the range.
    @Test func conversionsFollowTheDatasheetEquations() {
        #expect(HDC1080.celsius(0x0000) == -40)
        #expect(HDC1080.celsius(0x8000) == 42.5)
        #expect(abs(HDC1080.celsius(0xFFFF) - 124.997_482) < 0.000_001)
        #expect(HDC1080.celsius(0x6000) == 21.875)
        #expect(HDC1080.humidity(0x0000) == 0)
        #expect(HDC1080.humidity(0x8000) == 50)
        #expect(HDC1080.humidity(0x4000) == 25)
    }

    /// Table 8: sequence mode always; resolution bits as configured.
    @Test func configurationWordsMatchTable8() {
        #expect(HDC1080.Settings().configuration == 0x1000)
        #expect(HDC1080.Settings(temperatureResolution: .bits11, humidityResolution: .bits8).configuration == 0x1600)
        #expect(HDC1080.Settings(temperatureResolution: .bits14, humidityResolution: .bits11).configuration == 0x1100)
    }

    @Test func readsTheSimulatedChip() throws {
        let clock = SimulatedSensorClock()
        let bus = SimulatedI2CBus(busNumber: 1)
        let chip = SimulatedHDC1080(clock: clock)
        chip.setRawWords(temperature: 0x6000, humidity: 0x8000)
        bus.attach(chip, at: HDC1080.defaultAddress)
        let sensor = HDC1080(bus: bus, settings: .init(temperatureResolution: .bits11, humidityResolution: .bits11), clock: clock)
        try sensor.configure()
        #expect(chip.configuration == 0x1500)
        #expect(try sensor.read() == TemperatureHumidityReading(celsius: 21.875, relativeHumidity: 50))
    }

    /// Reading before the conversion is done is NACKed: the driver waits the typical times plus a margin.
    @Test func theSimulatedChipNacksUntilTheConversionIsDone() throws {
        let clock = SimulatedSensorClock()
        let bus = SimulatedI2CBus(busNumber: 1)
        bus.attach(SimulatedHDC1080(clock: clock), at: 0x40)
        try bus.write(address: 0x40, bytes: [0x00])
        #expect(throws: SensorBusError.self) { _ = try bus.read(address: 0x40, count: 4) }
        clock.advance(milliseconds: 13)
        #expect(try bus.read(address: 0x40, count: 4).count == 4)
    }

    @Test func anotherChipAtTheAddressIsRefused() {
        let clock = SimulatedSensorClock()
        let bus = SimulatedI2CBus(busNumber: 1)
        let chip = SimulatedHDC1080(clock: clock)
        chip.setDeviceID(0x1000)
        bus.attach(chip, at: 0x40)
        #expect(throws: SensorError.wrongChip(sensor: "HDC1080", expected: "manufacturer ID 0x5449, device ID 0x1050",
                                              found: "manufacturer ID 0x5449, device ID 0x1000")) {
            try HDC1080(bus: bus, clock: clock).configure()
        }
    }
}
