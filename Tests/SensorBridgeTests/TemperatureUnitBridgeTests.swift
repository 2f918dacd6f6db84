import BLECore
import BridgeConfiguration
import ControlSocket
import GATT
import Logging
import SIGProfiles
import Sensors
import Testing
import TestSupport
@testable import SensorBridge

/// `unit: fahrenheit` end to end on the simulated board: status and the Health Thermometer
/// measurement in °F (flags bit 0 set), Environmental Sensing Temperature still in °C.
@Suite struct TemperatureUnitBridgeTests {
    let clock = ManualClock()
    let sensorClock = SimulatedSensorClock()
    let sink = RecordingSink()
    let statuses = Recorder<SensorStatus>()

    @Test func fahrenheitReachesStatusAnd2A1CButNot2A6E() async throws {
        let sensors = [
            SensorConfiguration(name: "body", driver: .tmp102, pollInterval: .seconds(1), publish: [.temperatureMeasurement],
                                simulation: SimulationSettings(celsius: 37), unit: .fahrenheit),
            SensorConfiguration(name: "room", driver: .bme280, pollInterval: .seconds(1), publish: [.environmentalTemperature],
                                simulation: SimulationSettings(celsius: 20, relativeHumidity: 45, pascals: 101_325), unit: .fahrenheit),
        ]
        let board = SimulatedBoard(clock: sensorClock)
        let bridge = SensorBridge(configuration: Fixtures.configuration(sensors), sink: sink,
                                  factory: SensorSourceFactory(board: Fixtures.board, simulation: board),
                                  clock: clock, logger: Logger(label: "unit-test"))
        bridge.setStatusObserver { statuses.append($0) }
        bridge.start()
        clock.advance(by: .zero)
        await statuses.wait { items in Set(items.filter { $0.state == .ok }.map(\.name)) == ["body", "room"] }
        let status = bridge.sensorStatus()
        // 37 °C = 98.6 °F, 20 °C = 68 °F (°F = °C × 9/5 + 32).
        #expect(status[0].unit == "°F")
        #expect(abs((status[0].value ?? 0) - 98.6) < 0.12)
        #expect(status[1].readings.first?.unit == "°F")
        #expect(abs((status[1].readings.first?.value ?? 0) - 68) < 0.05)
        #expect(SensorLineFormatter.measurement(status[1]).hasPrefix("68.0"))

        let bytes = try #require(sink.values(of: HealthThermometerPublisher.measurement).first)
        #expect(bytes[0] & 0x01 == 0x01)  // Health Thermometer Service, Temperature Measurement flags bit 0: °F
        let measurement = try TemperatureMeasurement(decoding: bytes)
        #expect(measurement.unit == .fahrenheit)
        #expect(abs((measurement.temperature.doubleValue ?? 0) - 98.6) < 0.12)
        // ESS Temperature (0x2A6E) is °C by definition, whatever the display unit.
        let es = try #require(sink.values(of: CharacteristicID("environmental-sensing.es-temperature")).first)
        #expect(abs((try ESTemperature(decoding: es).celsius ?? 0) - 20) < 0.02)
        bridge.stop()
    }
}
