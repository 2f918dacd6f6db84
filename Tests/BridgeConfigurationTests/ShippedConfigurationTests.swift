import BLECore
import Sensors
import Testing
@testable import BridgeConfiguration

@Suite struct ShippedConfigurationTests {
    /// The packaged default says `board: auto`, so it needs no edit on any supported Pi.
    @Test(arguments: [("Raspberry Pi 4 Model B Rev 1.5", "raspberry-pi-4b"), ("Raspberry Pi 400 Rev 1.0", "raspberry-pi-4b"),
                      ("Raspberry Pi 3 Model B Plus Rev 1.3", "raspberry-pi-3b-plus"), ("Raspberry Pi 5 Model B Rev 1.0", "raspberry-pi-5"),
                      ("Raspberry Pi Zero 2 W Rev 1.0", "raspberry-pi-zero-2-w")])
    func exampleFileLoadsWithoutProblemsOnEverySupportedPi(model: String, board: String) throws {
        let result = ConfigurationLoader.load(path: repositoryRoot + "/systemd/blesensor.yaml",
                                              boardsDirectories: [repositoryBoards], environment: [:],
                                              boardDetection: .assuming(model: model))
        if case let .failure(problems) = result { Issue.record("\(problems)") }
        let configuration = try result.get()
        #expect(configuration.board.name == board)
        #expect(configuration.boardChoice?.deviceTreeModel == model)
        #expect(configuration.transport == "hci:0")
        #expect(configuration.address == .persistentRandom)
        #expect(configuration.deviceInformation.model == model)
        #expect(configuration.sensors.map(\.name) == ["pulse", "body", "room"])
        #expect(configuration.sensors.map(\.i2cAddress) == [0x57, 0x48, 0x76])
    }

    @Test func demoIsTheSimulatedBridge() throws {
        let configuration = try BridgeConfiguration.demo(boardsDirectories: [], environment: [:]).get()
        #expect(configuration.board.simulated)
        #expect(configuration.transport == "virtual")
        #expect(configuration.appearance == 0x0340)
        #expect(configuration.sensors == [
            SensorConfiguration(name: "pulse", driver: .max30102, i2cBus: 1, i2cAddress: 0x57, pollInterval: .milliseconds(250),
                                publish: [.heartRateMeasurement], simulation: SimulationSettings(beatsPerMinute: 72)),
            SensorConfiguration(name: "body", driver: .tmp102, i2cBus: 1, i2cAddress: 0x48, pollInterval: .seconds(1),
                                publish: [.temperatureMeasurement, .intermediateTemperature], simulation: SimulationSettings(celsius: 36.8)),
            SensorConfiguration(name: "room", driver: .bme280, i2cBus: 1, i2cAddress: 0x76, pollInterval: .seconds(1),
                                publish: [.environmentalTemperature, .humidity, .pressure],
                                simulation: SimulationSettings(celsius: 21.5, relativeHumidity: 45, pascals: 101_325)),
            SensorConfiguration(name: "battery", driver: .max17048, i2cBus: 1, i2cAddress: 0x36, pollInterval: .seconds(1),
                                publish: [.batteryLevel], simulation: SimulationSettings(batteryPercent: 87)),
        ])
        // Battery is found after connecting; only the measurement services are advertised.
        #expect(configuration.advertising.services == [BluetoothUUID(0x180D), BluetoothUUID(0x1809), BluetoothUUID(0x181A)])
        // The same demo with the repository's simulated.yaml instead of the built-in profile.
        #expect(try BridgeConfiguration.demo(boardsDirectories: [repositoryBoards], environment: [:]).get() == configuration)
    }
}

/// The shipped file documents each exporter section commented out: uncommented, it loads.
@Suite struct ShippedExporterSectionsTests {
    static let shipped = repositoryRoot + "/systemd/blesensor.yaml"

    /// The file with the block that starts at `# SECTION:` uncommented (up to the next blank line).
    static func uncommented(_ section: String) throws -> String {
        let text = try YAMLDocument.contents(path: shipped).get()
        var inBlock = false
        var found = false
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            if line == "# \(section):" { inBlock = true; found = true }
            if line.isEmpty { inBlock = false }
            return inBlock && line.hasPrefix("# ") ? String(line.dropFirst(2)) : String(line)
        }
        #expect(found, "no '# \(section):' block in systemd/blesensor.yaml")
        return lines.joined(separator: "\n")
    }

    @Test func theMetricsBlockLoadsAndNamesEveryKey() throws {
        let text = try Self.uncommented("metrics")
        let configuration = try ConfigurationLoader.load(yaml: text, fileName: "blesensor.yaml", boardsDirectories: [repositoryBoards],
                                                         environment: [:], boardDetection: .assuming(model: "Raspberry Pi 4 Model B")).get()
        let metrics = try #require(configuration.metrics)
        #expect(metrics.host == "127.0.0.1" && metrics.port == MetricsSettings.defaultPort)
        #expect(metrics.sensors.names == ["pulse", "room"])
        for key in ConfigurationLoader.metricsKeys { #expect(text.contains("\n  \(key): "), "metrics: \(key) is not documented") }
    }

    @Test func theMQTTBlockLoadsAndNamesEveryKey() throws {
        let text = try Self.uncommented("mqtt")
        let result = ConfigurationLoader.load(yaml: text, fileName: "blesensor.yaml", boardsDirectories: [repositoryBoards],
                                              environment: [:], boardDetection: .assuming(model: "Raspberry Pi 4 Model B"))
        // The example names files that are not on this machine; everything else must hold.
        var problems: [String] = []
        if case let .failure(found) = result { problems = found.problems.map(\.description) }
        #expect(problems.allSatisfy { $0.hasPrefix("mqtt.") && $0.contains(": /etc/blesensor/mqtt-") && $0.contains(" does not exist") },
                "\(problems)")
        for key in ConfigurationLoader.mqttKeys { #expect(text.contains("\n  \(key): "), "mqtt: \(key) is not documented") }
    }
}
