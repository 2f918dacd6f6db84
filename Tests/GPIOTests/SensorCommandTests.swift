import Testing
@testable import SensorCommands
@testable import Sensors

@Suite struct SensorCommandTests {
    func run(_ arguments: [String]) throws -> String {
        let command = try SensorCommand.parseAsRoot(arguments)
        guard let read = command as? SensorReadCommand else {
            Issue.record("parsed \(type(of: command)), expected SensorReadCommand")
            return ""
        }
        return try read.execute()
    }

    @Test func readsEverySimulatedDriver() throws {
        #expect(try run(["read", "tmp102", "--simulated"]) == "tmp102: 23.50 °C")
        #expect(try run(["read", "mcp9808", "--simulated", "--address", "0x18"]) == "mcp9808: 21.25 °C")
        #expect(try run(["read", "bme280", "--simulated"]).hasPrefix("bme280: 21.50 °C, 1013.2"))
        #expect(try run(["read", "sht31", "--simulated"]) == "sht31: 22.50 °C, 48.0 %RH")
        #expect(try run(["read", "sht4x", "--simulated"]) == "sht4x: 22.50 °C, 48.0 %RH")
        // The simulated gauge has just powered up, so its reset indicator is reported (and cleared).
        #expect(try run(["read", "max17048", "--simulated"]) == "max17048: 3.920 V, 81.5 % (\(MAX17048.resetNotice); reset indicator cleared)")
        #expect(try run(["read", "ds18b20", "--simulated"]) == "ds18b20 28-00000a1b2c3d: 19.62 °C")
        #expect(try run(["read", "cpu-temp", "--simulated"]) == "cpu-temp: 48.31 °C")
        #expect(try run(["read", "gpio-pulse", "--simulated", "--line", "GPIO17"]).hasPrefix("gpio-pulse: 72 bpm, RR ms: 833"))
        let ppg = try run(["read", "max30102", "--simulated", "--seconds", "10"])
        #expect(ppg.hasPrefix("max30102: 7"), "\(ppg)")
        // The simulated finger has R = 0.5: −45.060·0.25 + 30.354·0.5 + 94.845 = 98.757 % (MAXREFDES117 curve).
        #expect(ppg.contains("; SpO2 98.8 % (perfusion index "), "\(ppg)")
        let small = try run(["read", "max30100", "--simulated", "--seconds", "10"])
        #expect(small.hasPrefix("max30100: 7") && small.contains("; SpO2 98.8 % "), "\(small)")
    }

    @Test func wrongAddressAndMissingBusArePlainErrors() throws {
        #expect(throws: SensorCommandError.sensor(.bus(.noDevice(bus: 1, address: 0x49)))) {
            try run(["read", "tmp102", "--simulated", "--address", "0x49"])
        }
        #expect(throws: SensorCommandError.sensor(.bus(.busMissing(bus: 7)))) {
            try run(["read", "tmp102", "--simulated", "--bus", "7"])
        }
        #expect(throws: SensorCommandError.usage("'0x99' is not a 7-bit I2C address (0x03...0x77)")) {
            try run(["read", "tmp102", "--simulated", "--address", "0x99"])
        }
        #expect(throws: SensorCommandError.usage("gpio-pulse needs --line: a line offset such as 17 or a name such as GPIO17 (list them with gpioinfo)")) {
            try run(["read", "gpio-pulse", "--simulated"])
        }
        #expect(throws: (any Error).self) { try SensorCommand.parseAsRoot(["read", "nosuchchip"]) }
    }

    /// Non-finite, huge, zero or negative --seconds trapped in Int(seconds / 0.2) or UInt64(ms * 1e6).
    @Test(arguments: ["inf", "nan", "1e300", "-1", "0", "3601"])
    func secondsOutOfRangeIsAUsageError(value: String) throws {
        for driver in ["max30102", "gpio-pulse"] {
            do {
                _ = try run(["read", driver, "--simulated", "--line", "GPIO17", "--seconds=\(value)"])
                Issue.record("\(driver) --seconds \(value) was accepted")
            } catch let error as SensorCommandError {
                guard case let .usage(message) = error else { Issue.record("expected usage error, got \(error)"); continue }
                #expect(message.hasPrefix("--seconds must be"), "\(message)")
                #expect(error.exitCode == 64)
            }
        }
    }

    @Test func iirFilterOption() throws {
        #expect(try run(["read", "bme280", "--simulated", "--iir-filter", "16"]).hasPrefix("bme280: 21.50 °C, 1013.2"))
        #expect(try run(["read", "bme280", "--simulated", "--iir-filter", "off"]).hasPrefix("bme280: 21.50 °C"))
        #expect(throws: SensorCommandError.usage("--iir-filter: 3 is not an IIR filter coefficient; use one of off, 2, 4, 8, 16")) {
            try run(["read", "bme280", "--simulated", "--iir-filter", "3"])
        }
        #expect(throws: SensorCommandError.usage("--iir-filter: tmp102 takes no 'iir-filter' option; it applies to bme280")) {
            try run(["read", "tmp102", "--simulated", "--iir-filter", "2"])
        }
    }

    @Test func argumentErrorsAreUsageErrorsWithExitCode64() throws {
        for arguments in [["read", "tmp102", "--simulated", "--address", "zz"],
                          ["read", "gpio-pulse", "--simulated", "--line", ""],
                          ["read", "gpio-pulse", "--simulated", "--line", "17", "--chip", ""],
                          ["read", "ds18b20", "--simulated", "--id", "../../etc"]] {
            do {
                _ = try run(arguments)
                Issue.record("\(arguments) was accepted")
            } catch let error as SensorCommandError {
                guard case .usage = error else { Issue.record("\(arguments): expected usage error, got \(error)"); continue }
                #expect(error.exitCode == 64)
            }
        }
        #expect(SensorCommandError.sensor(.bus(.busMissing(bus: 3))).exitCode == 1)
        #expect(try run(["read", "gpio-pulse", "--simulated", "--line", "GPIO17", "--seconds", "0.5"]).hasPrefix("gpio-pulse"))
    }
}
