import BridgeConfiguration
import Testing
@testable import SensorCommands
@testable import Sensors

/// `blesensor sensor read` takes the configuration's driver settings under the same names.
@Suite struct SensorReadSettingsTests {
    func run(_ arguments: [String]) throws -> String {
        let command = try SensorCommand.parseAsRoot(["read"] + arguments)
        guard let read = command as? SensorReadCommand else {
            Issue.record("parsed \(type(of: command)), expected SensorReadCommand")
            return ""
        }
        return try read.execute()
    }

    /// The options sensor read had before drivers read their own: each keeps a flag of its own.
    static let namedFlags = ["oversampling", "iir-filter", "sample-rate", "led-current-ma", "mode", "conversion-cycle", "averaging",
                             "data-format", "edge", "bias", "conversion-rate", "extended-mode", "resolution", "repeatability", "heater",
                             "precision"]

    @Test func everyConfigurationOptionIsACommandLineOption() throws {
        for name in Self.namedFlags {
            #expect(CommandLineSettings.optionNames.contains(name))
            let command = try SensorReadCommand.parse(["tmp102", "--\(name)", "x"])
            #expect(command.givenSettings.map(\.name) == [name])
        }
        // Every option of every driver, those of drivers added later included, through --option.
        for name in CommandLineSettings.optionNames {
            let command = try SensorReadCommand.parse(["tmp102", "--option", "\(name)=x"])
            #expect(command.givenSettings.map(\.name) == [name])
            #expect(command.givenSettings.map(\.text) == ["x"])
        }
        _ = try SensorReadCommand.parse(["tmp102", "--calibration-offset", "-0.3"])
    }

    @Test func aBatteryOffsetMovesTheStateOfChargeAsInTheDaemon() throws {
        // The simulated gauge holds 81.5 %.
        #expect(try run(["max17048", "--simulated", "--calibration-offset", "-1.5"]).hasPrefix("max17048: 3.920 V, 80.0 %"))
        #expect(try run(["max17048", "--simulated", "--calibration-offset", "30"]).hasPrefix("max17048: 3.920 V, 100.0 %"))
    }

    @Test func settingsChangeTheReading() throws {
        #expect(try run(["tmp102", "--simulated", "--conversion-rate", "8", "--calibration-offset", "-0.5"]) == "tmp102: 23.00 °C")
        #expect(try run(["tmp102", "--simulated", "--extended-mode", "on"]) == "tmp102: 23.50 °C")
        #expect(try run(["mcp9808", "--simulated", "--resolution", "0.25"]) == "mcp9808: 21.25 °C")
        // The simulated chip reads 21.25 °C; at 0.5 °C resolution bits 2-0 read as 0: 21.0 °C.
        #expect(try run(["mcp9808", "--simulated", "--resolution", "0.5"]) == "mcp9808: 21.00 °C")
        #expect(try run(["sht31", "--simulated", "--repeatability", "low", "--calibration-offset", "temperature=0.5,humidity=-3"])
                == "sht31: 23.00 °C, 45.0 %RH")
        #expect(try run(["sht31", "--simulated", "--heater", "on"]) == "sht31: 22.50 °C, 48.0 %RH (heater on: not the ambient temperature)")
        #expect(try run(["sht4x", "--simulated", "--precision", "medium"]) == "sht4x: 22.50 °C, 48.0 %RH")
        // One pulse: the hot die's values, said to be so (simulated rise: +50 °C for 200 mW over 1 s).
        #expect(try run(["sht4x", "--simulated", "--heater", "power=200mw,pulse=1s"])
                == "sht4x: 72.50 °C, 3.7 %RH (measured at the end of a heater pulse, 200 mW for 1 s: the hot die, not the ambient values)")
        // Humidity skipped (oversampling 0) is left out of the line.
        let bme = try run(["bme280", "--simulated", "--oversampling", "temperature=2,pressure=16,humidity=0"])
        #expect(bme.hasPrefix("bme280: 21.50 °C, 1013.2"))
        #expect(!bme.contains("%RH"))
        let ppg = try run(["max30102", "--simulated", "--seconds", "10", "--sample-rate", "100", "--led-current-ma", "10"])
        #expect(ppg.hasPrefix("max30102: 7"), "\(ppg)")
        #expect(try run(["gpio-pulse", "--simulated", "--line", "GPIO17", "--edge", "rising", "--bias", "pull-down"])
                .hasPrefix("gpio-pulse: 72 bpm"))
    }

    @Test func badSettingsAreUsageErrorsInTheConfigurationsWords() {
        #expect(throws: SensorCommandError.usage("--conversion-rate: 2 is not one of 0.25, 1, 4, 8 Hz")) {
            try run(["tmp102", "--simulated", "--conversion-rate", "2"])
        }
        #expect(throws: SensorCommandError.usage("--heater: the sht4x heater runs in pulses, not on or off: give its power (20mw, 110mw or 200mw), pulse (100ms or 1s) and, for the daemon, every (how often, e.g. 5m)")) {
            try run(["sht4x", "--simulated", "--heater", "on"])
        }
        #expect(throws: SensorCommandError.usage("--heater: every and cool-down schedule the daemon's heater; sensor read runs one pulse (power=…,pulse=…)")) {
            try run(["sht4x", "--simulated", "--heater", "power=20mw,pulse=1s,every=1m"])
        }
        #expect(throws: SensorCommandError.usage("--heater every: a 1s pulse (up to 1.1s) every 5s can exceed the heater's 10 % duty limit (datasheet 4.9); use every: 11s or longer")) {
            try run(["sht4x", "--simulated", "--heater", "power=20mw,pulse=1s,every=5s"])
        }
        #expect(throws: SensorCommandError.usage("--sample-rate: tmp102 takes no 'sample-rate' option; it applies to max30102, max30101, max30100")) {
            try run(["tmp102", "--simulated", "--sample-rate", "100"])
        }
        #expect(throws: SensorCommandError.usage("--oversampling humidity: 3 is not one of 0, 1, 2, 4, 8, 16")) {
            try run(["bme280", "--simulated", "--oversampling", "humidity=3"])
        }
        #expect(throws: SensorCommandError.usage("--oversampling humid: unknown key 'humid'; did you mean 'humidity'?")) {
            try run(["bme280", "--simulated", "--oversampling", "humid=1"])
        }
        #expect(throws: SensorCommandError.usage("--led-current-ma: 60 is out of range 0…51 mA")) {
            try run(["max30102", "--simulated", "--led-current-ma", "60"])
        }
        #expect(throws: SensorCommandError.usage("--calibration-offset pressure: tmp102 does not measure pressure; it measures temperature")) {
            try run(["tmp102", "--simulated", "--calibration-offset", "pressure=1"])
        }
        // Two problems, one line each.
        #expect(throws: SensorCommandError.usage("--resolution: sht31 takes no 'resolution' option; it applies to mcp9808\n"
                                                  + "--repeatability: 'best' is not allowed here (use one of high, medium, low)")) {
            try run(["sht31", "--simulated", "--resolution", "0.5", "--repeatability", "best"])
        }
    }

    @Test func fahrenheitWithOffsetsInCelsius() throws {
        let thermometers = SensorDriver.allCases.filter { $0.quantities.contains(.temperature) }.map(\.rawValue).joined(separator: ", ")
        // 23.5 °C = 74.30 °F; the offset is in °C: 23.0 °C = 73.40 °F.
        #expect(try run(["tmp102", "--simulated", "--unit", "fahrenheit"]) == "tmp102: 74.30 °F")
        #expect(try run(["tmp102", "--simulated", "--unit", "fahrenheit", "--calibration-offset", "-0.5"]) == "tmp102: 73.40 °F")
        #expect(try run(["sht31", "--simulated", "--unit", "celsius"]) == "sht31: 22.50 °C, 48.0 %RH")
        #expect(throws: SensorCommandError.usage("--unit: max17048 does not measure temperature; 'unit' applies to "
                                                  + thermometers)) {
            try run(["max17048", "--simulated", "--unit", "fahrenheit"])
        }
    }
}
