import Testing
@testable import Sensors

/// A chip in shutdown keeps its last conversion; a BME280 channel that did not convert keeps its
/// reset value. Both used to be reported as fresh measurements.
@Suite struct ShutdownAndResetValueTests {
    @Test func tmp102InShutdownIsAFault() throws {
        let clock = SimulatedSensorClock()
        let bus = SimulatedI2CBus()
        let chip = SimulatedTMP102(celsius: 22, clock: clock)
        bus.attach(chip, at: 0x48)
        let sensor = TMP102(bus: bus, clock: clock)
        #expect(try sensor.read().celsius == 22)
        chip.setShutdown(true)
        chip.setTemperature(30)
        #expect(throws: SensorError.shutDown(sensor: "TMP102", bit: "SD")) { try sensor.read() }
        chip.setShutdown(false)
        #expect(try sensor.read().celsius == 30)
        // The same through the bus, as another program would do it: SD is config bit 8.
        try bus.writeBigEndianWord(address: 0x48, command: 0x01, value: chip.configuration | 0x0100)
        #expect(throws: SensorError.shutDown(sensor: "TMP102", bit: "SD")) { try sensor.read() }
        #expect(SensorError.shutDown(sensor: "TMP102", bit: "SD").description.contains("clear the bit"))
    }

    @Test func mcp9808InShutdownIsAFault() throws {
        let clock = SimulatedSensorClock()
        let bus = SimulatedI2CBus()
        let chip = SimulatedMCP9808(celsius: 21, clock: clock)
        bus.attach(chip, at: 0x18)
        let sensor = MCP9808(bus: bus, clock: clock)
        #expect(try sensor.read().celsius == 21)
        chip.setShutdown(true)
        chip.setTemperature(35)
        #expect(throws: SensorError.shutDown(sensor: "MCP9808", bit: "SHDN")) { try sensor.read() }
        chip.setShutdown(false)
        #expect(try sensor.read().celsius == 35)
        try bus.writeBigEndianWord(address: 0x18, command: 0x01, value: 0x0100)
        #expect(throws: SensorError.shutDown(sensor: "MCP9808", bit: "SHDN")) { try sensor.read() }
    }

    @Test func bme280ResetValuesAreFaults() throws {
        let clock = SimulatedSensorClock()
        let bus = SimulatedI2CBus()
        let chip = SimulatedBME280(clock: clock)
        chip.setEnvironment(celsius: 20, pascals: 100_000, relativeHumidity: 50)
        bus.attach(chip, at: 0x76)
        let sensor = BME280(bus: bus, clock: clock)
        #expect(abs(try #require(try sensor.read().relativeHumidity) - 50) < 0.1)
        chip.skipConversions(pressure: false, humidity: true)
        #expect(throws: SensorError.invalidData(sensor: "BME280",
                                                reason: "humidity channel reads its reset value 0x8000: no conversion happened; check ctrl_hum")) {
            try sensor.read()
        }
        chip.skipConversions(pressure: true, humidity: false)
        #expect(throws: SensorError.invalidData(sensor: "BME280",
                                                reason: "pressure channel reads its reset value 0x80000: no conversion happened; check the configuration")) {
            try sensor.read()
        }
        chip.skipConversions(pressure: false, humidity: false)
        #expect(abs(try #require(try sensor.read().pascals) - 100_000) < 1)
    }
}
