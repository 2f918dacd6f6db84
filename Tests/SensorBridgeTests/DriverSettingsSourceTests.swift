import BridgeConfiguration
import Sensors
import Testing
import TestSupport
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
        let source = try source(.tmp102, DriverOptions(TMP102Driver.Settings(conversionRate: .hz1, extendedMode: true)))
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
        _ = try source(.mcp9808, DriverOptions(MCP9808Driver.Settings(resolution: .quarterDegree))).read()
        #expect(chip.resolution == 0b01)
    }

    @Test func sht31RepeatabilityAndHeater() throws {
        let chip = SimulatedSHT31(clock: clock)
        bus.attach(chip, at: 0x44)
        _ = try source(.sht31, DriverOptions(SHT31Driver.Settings(repeatability: .medium, heater: true))).read()
        #expect(chip.lastMeasurementCommand == 0x240B)
        #expect(chip.status & 0x2000 != 0)
    }

    @Test func sht4xPrecision() throws {
        let chip = SimulatedSHT4x(clock: clock)
        bus.attach(chip, at: 0x44)
        _ = try source(.sht4x, DriverOptions(SHT4xDriver.Settings(precision: .low))).read()
        #expect(chip.lastMeasurementCommand == 0xE0)
    }

    /// A pulse that fails on the bus closes the source; the reopened one still knows the die may
    /// be hot (the bridge keeps the heater's memory per sensor), so the next poll is a cool-down.
    @Test func aHeaterPulseThatFailsKeepsItsCoolDownAcrossTheReopen() throws {
        let chip = SimulatedSHT4x(celsius: 12, relativeHumidity: 92, clock: clock)
        bus.attach(chip, at: 0x44)
        let sensor = SensorConfiguration(name: "cellar", driver: .sht4x, pollInterval: .seconds(1),
                                         options: DriverOptions(SHT4xDriver.Settings(heaterPulse: .init(power: .milliwatts200, duration: .seconds1),
                                                                heaterEvery: .seconds(20), heaterCoolDown: .seconds(10))),
                                         publish: [])
        let memory = SHT4xHeaterCycle.Memory()
        let opened = Recorder<Int>()
        let source = ReopeningSource { () throws(SensorError) in
            opened.append(1)
            return try SensorSourceFactory.i2cSource(sensor: sensor, bus: bus, clock: clock, heaterMemory: memory)
        }
        #expect(try source.read().temperature.map { abs($0 - 12) < 0.01 } == true)
        clock.advance(milliseconds: 20_000)
        chip.corruptCRC(true)
        #expect(throws: SensorError.self) { try source.read() }
        chip.corruptCRC(false)
        clock.advance(milliseconds: 500)
        // The die reads hot here (simulated residual heat): it must not come out as a measurement.
        let duringCoolDown = Result { () throws(SensorError) in try source.read() }
        guard case .failure(.conditioning) = duringCoolDown else {
            Issue.record("read \(duringCoolDown) during the cool-down after a failed pulse")
            return
        }
        #expect(opened.all.count == 2, "the failed pulse closed the source and the next poll reopened it")
        clock.advance(milliseconds: 10_000)
        #expect(try source.read().temperature.map { abs($0 - 12) < 0.01 } == true)
        #expect(chip.heaterPulses.count == 1)
    }
}
