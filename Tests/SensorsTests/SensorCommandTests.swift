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
        #expect(try run(["read", "max17048", "--simulated"]) == "max17048: 3.920 V, 81.5 %")
        #expect(try run(["read", "ds18b20", "--simulated"]) == "ds18b20 28-00000a1b2c3d: 19.62 °C")
        #expect(try run(["read", "cpu-temp", "--simulated"]) == "cpu-temp: 48.31 °C")
        #expect(try run(["read", "gpio-pulse", "--simulated", "--line", "GPIO17"]).hasPrefix("gpio-pulse: 72 bpm, RR ms: 833"))
        let ppg = try run(["read", "max30102", "--simulated", "--seconds", "10"])
        #expect(ppg.hasPrefix("max30102: 7"), "\(ppg)")
    }

    @Test func wrongAddressAndMissingBusArePlainErrors() throws {
        #expect(throws: SensorCommandError.sensor(.bus(.noDevice(bus: 1, address: 0x49)))) {
            try run(["read", "tmp102", "--simulated", "--address", "0x49"])
        }
        #expect(throws: SensorCommandError.sensor(.bus(.busMissing(bus: 7)))) {
            try run(["read", "tmp102", "--simulated", "--bus", "7"])
        }
        #expect(throws: SensorCommandError.self) { try run(["read", "tmp102", "--simulated", "--address", "0x99"]) }
        #expect(throws: SensorCommandError.self) { try run(["read", "gpio-pulse", "--simulated"]) }
        #expect(throws: (any Error).self) { try SensorCommand.parseAsRoot(["read", "nosuchchip"]) }
    }
}
