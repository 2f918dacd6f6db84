import BridgeConfiguration
import Sensors
import Testing
@testable import SensorBridge

/// A sensor's `options:` from the configuration reach the chip when the daemon builds its source.
@Suite struct DriverSettingsSourceTests {
    let clock = SimulatedSensorClock()
    let bus = SimulatedI2CBus()

    func source(_ driver: SensorDriver, _ options: DriverOptions) throws -> any SensorSource {
        let sensor = SensorConfiguration(name: "s", driver: driver, pollInterval: .seconds(1), options: options, publish: [])
        return try SensorSourceFactory.i2cSource(sensor: sensor, bus: bus, clock: clock)
    }

    @Test func tmp102RateAndExtendedMode() throws {
        let chip = SimulatedTMP102(celsius: 140, clock: clock)
        bus.attach(chip, at: 0x48)
        let source = try source(.tmp102, DriverOptions(conversionRate: .hz1, extendedMode: true))
        // 140 °C is only readable in 13-bit extended mode; CR = 01 (1 Hz), EM set: 0x6070.
        #expect(try source.read().temperature == 140)
        #expect(chip.configuration == 0x6070)
    }

    @Test func tmp102WithoutSettingsKeepsTheChipsConfiguration() throws {
        let chip = SimulatedTMP102(celsius: 21, clock: clock)
        bus.attach(chip, at: 0x48)
        _ = try source(.tmp102, DriverOptions()).read()
        #expect(chip.configuration == 0x60A0)
    }

    @Test func mcp9808Resolution() throws {
        let chip = SimulatedMCP9808(celsius: 20, clock: clock)
        bus.attach(chip, at: 0x18)
        _ = try source(.mcp9808, DriverOptions(resolution: .quarterDegree)).read()
        #expect(chip.resolution == 0b01)
    }

    @Test func sht31RepeatabilityAndHeater() throws {
        let chip = SimulatedSHT31(clock: clock)
        bus.attach(chip, at: 0x44)
        _ = try source(.sht31, DriverOptions(repeatability: .medium, heater: true)).read()
        #expect(chip.lastMeasurementCommand == 0x240B)
        #expect(chip.status & 0x2000 != 0)
    }

    @Test func sht4xPrecision() throws {
        let chip = SimulatedSHT4x(clock: clock)
        bus.attach(chip, at: 0x44)
        _ = try source(.sht4x, DriverOptions(precision: .low)).read()
        #expect(chip.lastMeasurementCommand == 0xE0)
    }
}
