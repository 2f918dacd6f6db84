import Sensors
import Testing
@testable import BridgeConfiguration

/// The per-sensor settings of `options:`: accepted values, and each bad value reported with its path and line.
@Suite struct DriverSettingsConfigurationTests {
    @Test func settingsOfEachDriver() throws {
        let yaml = """
            board: simulated
            sensors:
              - {name: a, driver: tmp102, options: {conversion-rate: 0.25, extended-mode: "on"}}
              - {name: b, driver: mcp9808, options: {resolution: 0.125}}
              - {name: c, driver: sht31, options: {repeatability: low, heater: "off"}}
              - {name: d, driver: sht4x, bus: 2, options: {precision: medium}}
            """
        let sensors = try load(yaml).get().sensors
        #expect(sensors[0].options.settings(TMP102Driver.Settings.self).conversionRate == .hz0_25)
        #expect(sensors[0].options.settings(TMP102Driver.Settings.self).extendedMode == true)
        #expect(sensors[1].options.settings(MCP9808Driver.Settings.self).resolution == .eighthDegree)
        #expect(sensors[2].options.settings(SHT31Driver.Settings.self).repeatability == .low)
        #expect(sensors[2].options.settings(SHT31Driver.Settings.self).heater == false)
        #expect(sensors[3].options.settings(SHT4xDriver.Settings.self).precision == .medium)
    }

    @Test func badValuesNameTheirPathAndLine() {
        #expect(problems("""
            board: simulated
            sensors:
              - {name: a, driver: tmp102, options: {conversion-rate: 2}}
              - {name: b, driver: mcp9808, options: {resolution: 0.1}}
              - {name: c, driver: sht31, options: {repeatability: hihg, heater: maybe}}
              - {name: d, driver: sht4x, bus: 2, options: {precision: [high]}}
              - {name: e, driver: tmp102, address: 0x49, options: {extended-mode: yes}}
            """) == [
            "sensors[0].options.conversion-rate (line 3): 2 is not one of 0.25, 1, 4, 8 Hz",
            "sensors[1].options.resolution (line 4): 0.1 is not one of 0.5, 0.25, 0.125, 0.0625 °C",
            "sensors[2].options.repeatability (line 5): 'hihg' is not allowed here; did you mean 'high'?",
            "sensors[2].options.heater (line 5): maybe is not one of on, off",
            "sensors[3].options.precision (line 6): expected one of high, medium, low, found a list",
            "sensors[4].options.extended-mode (line 7): yes is not one of on, off",
        ])
    }

    @Test func heartRateAndSpO2TakeNoCalibrationOffset() {
        #expect(problems("""
            board: simulated
            sensors:
              - {name: a, driver: max30102, calibration-offset: {spo2: 2}}
              - {name: b, driver: gpio-pulse, line: GPIO17, calibration-offset: 3}
            """) == [
            "sensors[0].calibration-offset.spo2 (line 3): spo2 takes no calibration offset (it is computed from beat timing or a calibration curve); "
                + "offsets apply to temperature, humidity, pressure and battery-level",
            "sensors[1].calibration-offset (line 4): heart-rate takes no calibration offset (it is computed from beat timing or a calibration curve); "
                + "offsets apply to temperature, humidity, pressure and battery-level",
        ])
    }

    @Test func settingsOfOtherDriversAreRejected() {
        #expect(problems("""
            board: simulated
            sensors:
              - {name: a, driver: sht4x, options: {heater: "on", repeatability: high}}
              - {name: b, driver: tmp102, options: {resolution: 0.5}}
              - {name: c, driver: mcp9808, options: {conversion-rate: 1, precision: low}}
            """) == [
            "sensors[0].options.repeatability (line 3): sht4x takes no 'repeatability' option; it applies to sht31",
            "sensors[0].options.heater (line 3): the sht4x heater runs in pulses, not on or off: give its power (20mw, 110mw or 200mw), pulse (100ms or 1s) and, for the daemon, every (how often, e.g. 5m)",
            "sensors[1].options.resolution (line 4): tmp102 takes no 'resolution' option; it applies to mcp9808",
            "sensors[2].options.conversion-rate (line 5): mcp9808 takes no 'conversion-rate' option; it applies to tmp102",
            "sensors[2].options.precision (line 5): mcp9808 takes no 'precision' option; it applies to sht4x",
        ])
    }

    @Test func sht4xHeaterSchedule() throws {
        let sensors = try load("""
            board: simulated
            sensors:
              - {name: a, driver: sht4x, options: {heater: {power: 110mw, pulse: 100ms, every: 5m}}}
              - {name: b, driver: sht4x, bus: 2, poll-interval: 1s, options: {heater: {power: 200mw, pulse: 1s, every: 20s, cool-down: 5s}}}
            """).get().sensors
        #expect(sensors[0].options.settings(SHT4xDriver.Settings.self).heaterSchedule == .init(pulse: .init(power: .milliwatts110, duration: .milliseconds100),
                                                                 every: .seconds(300), coolDown: .seconds(10)))
        #expect(sensors[1].options.settings(SHT4xDriver.Settings.self).heaterSchedule == .init(pulse: .init(power: .milliwatts200, duration: .seconds1),
                                                                 every: .seconds(20), coolDown: .seconds(5)))
    }

    @Test func sht4xHeaterMistakes() {
        #expect(problems("""
            board: simulated
            sensors:
              - {name: a, driver: sht4x, options: {heater: {power: 200mw, pulse: 1s, every: 10s}}}
              - {name: b, driver: sht4x, bus: 2, options: {heater: {power: 300mw, pulse: 2s, every: 1m}}}
              - {name: c, driver: sht4x, bus: 3, options: {heater: {power: 20mw, pulse: 1s}}}
              - {name: d, driver: sht4x, bus: 4, poll-interval: 5s, options: {heater: {power: 20mw, pulse: 1s, every: 16s}}}
              - {name: e, driver: sht4x, bus: 5, options: {heater: {pulse: 1s, every: 1m, warm: yes}}}
              - {name: f, driver: sht4x, bus: 6, options: {heater: {power: 20mw, pulse: 1s, every: 2h, cool-down: 2h}}}
              - {name: g, driver: sht4x, bus: 7, options: {heater: {power: 20mw, pulse: 1s, every: soon}}}
              - name: h
                driver: sht4x
                bus: 8
                options:
                  precision: high
                  heater: {power: 20mw, pulse: 100ms, every: 2s}
            """) == [
            "sensors[0].options.heater.every (line 3): a 1s pulse (up to 1.1s) every 10s can exceed the heater's 10 % duty limit (datasheet 4.9); use every: 11s or longer",
            "sensors[1].options.heater.power (line 4): 300mw is not one of 20mw, 110mw, 200mw",
            "sensors[1].options.heater.pulse (line 4): 2s is not one of 100ms, 1s",
            "sensors[2].options.heater.every (line 5): missing; say how often the daemon runs the heater, e.g. every: 5m (at least 12.1s for a 1s pulse with this cool-down and poll-interval)",
            "sensors[3].options.heater.every (line 6): heating every 16s leaves no ambient reading between pulses (pulse up to 1.1s + cool-down 10s + poll-interval 5s); use every: 16.1s or longer, or a shorter cool-down",
            "sensors[4].options.heater.warm (line 7): unknown key 'warm'; expected one of: power, pulse, every, cool-down",
            "sensors[4].options.heater.power (line 7): missing; the sht4x heater needs power (20mw, 110mw or 200mw), pulse (100ms or 1s) and, for the daemon, every (how often, e.g. 5m)",
            "sensors[5].options.heater.cool-down (line 8): 2h is out of range 0ms…1h",
            "sensors[6].options.heater.every (line 9): 'soon' is not a duration like 500ms, 2s, 1m or 1h",
            "sensors[7].options.heater.every (line 15): heating every 2s leaves no ambient reading between pulses (pulse up to 110ms + cool-down 10s + poll-interval 1s); use every: 11.11s or longer, or a shorter cool-down",
        ])
    }

    @Test func commandLineSettingsUseTheSameRules() throws {
        let parsed = try CommandLineSettings.settings(
            driver: .bme280, options: [("oversampling", "temperature=2,pressure=16,humidity=0"), ("iir-filter", "4")],
            calibrationOffset: "temperature=-0.3,pressure=120").get()
        #expect(parsed.options == DriverOptions(BME280Driver.Settings(temperatureOversampling: 2, pressureOversampling: 16, humidityOversampling: 0, iirFilter: .x4)))
        #expect(parsed.calibrationOffsets == [.temperature: -0.3, .pressure: 120])
        let single = try CommandLineSettings.settings(driver: .tmp102, options: [], calibrationOffset: "-0.5").get()
        #expect(single.calibrationOffsets == [.temperature: -0.5])

        guard case let .failure(failure) = CommandLineSettings.settings(
            driver: .sht31, options: [("precision", "high"), ("heater", "1")], calibrationOffset: "pressure=3") else {
            Issue.record("accepted settings sht31 does not take")
            return
        }
        #expect(failure.problems.map(\.description) == [
            "heater: 1 is not one of on, off",
            "precision: sht31 takes no 'precision' option; it applies to sht4x",
            "calibration-offset.pressure: sht31 does not measure pressure; it measures temperature, humidity",
        ])
    }

    @Test func everyOptionHasACommandLineName() {
        #expect(Set(CommandLineSettings.optionNames).isSuperset(of: [
            "oversampling", "iir-filter", "sample-rate", "led-current-ma", "edge", "bias", "conversion-rate", "extended-mode",
            "resolution", "repeatability", "heater", "precision",
        ]))
    }

    @Test func temperatureUnit() throws {
        // Computed, so drivers added later join the list.
        let thermometers = SensorDriver.allCases.filter { $0.quantities.contains(.temperature) }.map(\.rawValue).joined(separator: ", ")
        let sensors = try load("""
            board: simulated
            sensors:
              - {name: a, driver: tmp102, unit: fahrenheit}
              - {name: b, driver: bme280}
            """).get().sensors
        #expect(sensors[0].unit == .fahrenheit)
        #expect(sensors[1].unit == .celsius)
        #expect(problems("""
            board: simulated
            sensors:
              - {name: a, driver: tmp102, unit: kelvin}
              - {name: b, driver: max17048, unit: celsius}
            """) == [
            "sensors[0].unit (line 3): 'kelvin' is not allowed here (use one of celsius, fahrenheit)",
            "sensors[1].unit (line 4): max17048 does not measure temperature; 'unit' applies to "
                + thermometers,
        ])
    }
}
