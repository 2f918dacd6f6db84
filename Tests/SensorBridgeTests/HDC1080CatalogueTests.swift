import BLECore
import BridgeConfiguration
import ControlSocket
import Foundation
import GATT
import Logging
import SIGProfiles
import Sensors
import Testing
import TestSupport
@testable import SensorBridge

/// The HDC1080 was added as one file and one catalogue entry: these check that the loader, the
/// simulated board and the daemon's factory found it there, with datasheet values end to end.
@Suite struct HDC1080CatalogueTests {
    static let boards = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("boards").path

    func load(_ yaml: String) -> Result<BridgeConfiguration, ConfigurationProblems> {
        ConfigurationLoader.load(yaml: yaml, fileName: "t.yaml", boardsDirectories: [Self.boards], environment: [:])
    }

    @Test func theLoaderKnowsItsAddressQuantitiesAndOptions() throws {
        let configuration = try load("""
            board: simulated
            sensors:
              - {name: room, driver: hdc1080, publish: [es-temperature, humidity]}
            """).get()
        let room = try #require(configuration.sensors.first)
        #expect(room.driver == .hdc1080)
        #expect(room.i2cAddress == 0x40)
        #expect(room.pollInterval == .seconds(1))
        guard case let .failure(problems) = load("""
            board: simulated
            sensors:
              - {name: room, driver: hdc1080, options: {precision: high}, publish: [pressure]}
            """) else {
            Issue.record("an option the HDC1080 does not take, and a quantity it does not measure, were accepted")
            return
        }
        let messages = problems.problems.map(\.message)
        #expect(messages.contains("hdc1080 takes no 'precision' option; it applies to sht4x"), "\(messages)")
        #expect(messages.contains { $0.contains("hdc1080 does not measure pressure") }, "\(messages)")
    }

    /// Its own options, read by its descriptor into its own settings value, configure the chip
    /// (Table 8: 11-bit temperature 0x0400, 8-bit humidity 0x0200, with sequence mode 0x1000).
    @Test func itsOptionsReachTheChipsConfigurationRegister() throws {
        let configuration = try load("""
            board: simulated
            sensors:
              - {name: room, driver: hdc1080, options: {temperature-resolution: 11, humidity-resolution: 8}}
            """).get()
        let room = try #require(configuration.sensors.first)
        #expect(room.options[HDC1080.Settings.self] == HDC1080.Settings(temperatureResolution: .bits11, humidityResolution: .bits8))
        let clock = SimulatedSensorClock()
        let bus = SimulatedI2CBus(busNumber: 1)
        let chip = SimulatedHDC1080(celsius: 25, relativeHumidity: 40, clock: clock)
        bus.attach(chip, at: 0x40)
        let source = try SensorSourceFactory.i2cSource(sensor: room, bus: bus, clock: clock)
        let measurement = try source.read()
        #expect(chip.configuration == 0x1600)
        #expect(abs((measurement.temperature ?? 0) - 25) < 0.01)

        guard case let .failure(problems) = load("""
            board: simulated
            sensors:
              - {name: room, driver: hdc1080, options: {humidity-resolution: 12}}
            """) else {
            Issue.record("a humidity resolution the chip does not have was accepted")
            return
        }
        #expect(problems.problems.map(\.description) == ["sensors[0].options.humidity-resolution (line 3): 12 is not one of 8, 11, 14 bits"])
    }

    /// Datasheet 8.6.1 and 8.6.2: temperature word 0x6000 is 21.875 °C, humidity word 0x8000 is 50 %,
    /// loaded as raw registers from the configuration and read by the real driver.
    @Test func datasheetWordsReachEnvironmentalSensing() async throws {
        let configuration = try load("""
            board: simulated
            sensors:
              - {name: room, driver: hdc1080, simulation: {registers: {0x00: "60 00 80 00"}}, publish: [es-temperature, humidity]}
            """).get()
        let sink = RecordingSink()
        let statuses = Recorder<SensorStatus>()
        let clock = ManualClock()
        let bridge = SensorBridge(configuration: configuration, sink: sink,
                                  factory: SensorSourceFactory(board: configuration.board, simulation: SimulatedBoard(clock: SimulatedSensorClock())),
                                  clock: clock, logger: Logger(label: "hdc1080-test"))
        bridge.setStatusObserver { statuses.append($0) }
        bridge.start()
        clock.advance(by: .zero)
        await statuses.wait { items in items.contains { $0.state != .starting } }
        bridge.stop()
        let status = try #require(bridge.sensorStatus().first)
        #expect(status.state == .ok, "\(status.error ?? "")")
        #expect(status.readings.map(\.value) == [21.875, 50])
        let temperature = try #require(sink.values(of: CharacteristicID("environmental-sensing.es-temperature")).first)
        #expect(try ESTemperature(decoding: temperature).celsius == 21.88)
        let humidity = try #require(sink.values(of: CharacteristicID("environmental-sensing.humidity")).first)
        #expect(try Humidity(decoding: humidity).percent == 50)
    }
}
