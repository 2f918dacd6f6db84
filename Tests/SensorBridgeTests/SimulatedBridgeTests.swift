import BLECore
import BridgeConfiguration
import ControlSocket
import GATT
import Logging
import SIGProfiles
import Sensors
import Testing
import ATT
@testable import Peripheral
import TestSupport
@testable import SensorBridge

/// The bridge over the simulated board: real drivers against register-level simulated chips.
@Suite(.scaledTimeLimit(minutes: 1)) struct SimulatedBridgeTests {
    let clock = ManualClock()
    let sensorClock = SimulatedSensorClock()
    let sink = RecordingSink()
    let statuses = Recorder<SensorStatus>()

    func makeBridge(_ sensors: [SensorConfiguration]) -> SensorBridge {
        let board = SimulatedBoard(clock: sensorClock)
        let bridge = SensorBridge(configuration: Fixtures.configuration(sensors), sink: sink,
                                  factory: SensorSourceFactory(board: Fixtures.board, simulation: board),
                                  clock: clock, logger: Logger(label: "bridge-test"))
        bridge.setStatusObserver { statuses.append($0) }
        return bridge
    }

    static let sensors = [
        SensorConfiguration(name: "body", driver: .tmp102, pollInterval: .seconds(1), publish: [.temperatureMeasurement],
                            simulation: SimulationSettings(celsius: 36.8, failAfter: .seconds(10))),
        SensorConfiguration(name: "room", driver: .bme280, pollInterval: .seconds(1), publish: [.environmentalTemperature, .humidity, .pressure],
                            simulation: SimulationSettings(celsius: 21.5, relativeHumidity: 45, pascals: 101_325)),
        SensorConfiguration(name: "battery", driver: .max17048, pollInterval: .seconds(1), publish: [.batteryLevel],
                            simulation: SimulationSettings(batteryPercent: 87)),
    ]

    @Test func readingsFromTheSimulatedChipsReachTheServicesAndTheStatus() async throws {
        let bridge = makeBridge(Self.sensors)
        bridge.start()
        clock.advance(by: .zero)
        await statuses.wait { items in Set(items.filter { $0.state == .ok }.map(\.name)) == ["body", "room", "battery"] }
        let status = bridge.sensorStatus()
        #expect(status.map(\.name) == ["body", "room", "battery"])
        let body = try #require(status.first)
        #expect(abs((body.value ?? 0) - 36.8) < 0.07)
        #expect(body.unit == "°C")
        #expect(body.state == .ok)
        let room = status[1]
        #expect(room.readings.map(\.quantity) == ["temperature", "humidity", "pressure"])
        #expect(abs((room.readings[2].value) - 101_325) < 5)
        #expect(status[2].value == 87)

        let measurement = try TemperatureMeasurement(decoding: try #require(sink.values(of: HealthThermometerPublisher.measurement).first))
        #expect(abs((measurement.temperature.doubleValue ?? 0) - 36.8) < 0.07)
        let temperature = try #require(sink.values(of: CharacteristicID("environmental-sensing.es-temperature")).first)
        #expect(abs((try ESTemperature(decoding: temperature).celsius ?? 0) - 21.5) < 0.02)
        #expect(sink.values(of: BatteryPublisher.level) == [[87]])
        bridge.stop()
    }

    @Test func aSensorThatStopsAnsweringIsReportedAndSendsItsFaultValueWhileTheOthersKeepServing() async throws {
        let bridge = makeBridge(Self.sensors)
        bridge.start()
        clock.advance(by: .zero)
        await statuses.wait { items in items.contains { $0.name == "body" && $0.state == .ok } }
        sensorClock.advance(milliseconds: 11_000)
        // Each poller re-arms after it delivered its status: advance only once all have, or the
        // next read would move to the following grid point and never come.
        await clock.waitForTimers(atLeast: Self.sensors.count)
        clock.advance(by: .seconds(1))
        await statuses.wait { items in items.contains { $0.name == "body" && $0.state == .failed } }
        let failed = try #require(bridge.sensorStatus().first { $0.name == "body" })
        #expect(failed.value == nil)
        #expect(failed.error?.contains("0x48") == true)
        #expect(failed.failures >= 1)
        let nan = try #require(sink.values(of: HealthThermometerPublisher.measurement).last)
        #expect(try TemperatureMeasurement(decoding: nan).temperature == .nan)
        // The room sensor reads on after the fault.
        let roomReads = bridge.sensorStatus().first { $0.name == "room" }?.reads ?? 0
        await clock.waitForTimers(atLeast: Self.sensors.count)
        clock.advance(by: .seconds(1))
        await statuses.wait { items in items.contains { $0.name == "room" && $0.reads > roomReads && $0.state == .ok } }
        bridge.stop()
    }

    @Test func theServicesFollowThePublicationsAndDeviceInformationIsAlwaysThere() {
        let bridge = makeBridge(Self.sensors)
        #expect(bridge.services.map(\.uuid) == [BluetoothUUID(0x1809), BluetoothUUID(0x181A), BluetoothUUID(0x180F), BluetoothUUID(0x180A)])
        let onlyHeart = makeBridge([SensorConfiguration(name: "pulse", driver: .max30102, pollInterval: .milliseconds(250),
                                                        publish: [.heartRateMeasurement])])
        #expect(onlyHeart.services.map(\.uuid) == [BluetoothUUID(0x180D), BluetoothUUID(0x180A)])
        let info = onlyHeart.services.last?.characteristics.map(\.uuid) ?? []
        #expect(info == [0x2A29, 0x2A24, 0x2A26, 0x2A28, 0x2A50].map { BluetoothUUID($0) })
    }

    @Test func aMeasurementIntervalWriteChangesTheThermometersPollingPeriod() async throws {
        let bridge = makeBridge(Self.sensors)
        bridge.start()
        clock.advance(by: .zero)
        await statuses.wait { $0.contains { $0.name == "body" } }
        #expect(bridge.pollInterval(of: "body") == .seconds(1))
        let write = WriteRequest(characteristic: HealthThermometerPublisher.measurementInterval, descriptor: nil, value: [0x05, 0x00])
        #expect(throws: ATTErrorCode.outOfRange) {
            try bridge.apply([write, WriteRequest(characteristic: HealthThermometerPublisher.measurementInterval, descriptor: nil, value: [0, 0])]).get()
        }
        #expect(bridge.pollInterval(of: "body") == .seconds(1))
        try bridge.apply([write]).get()
        #expect(bridge.pollInterval(of: "body") == .seconds(5))
        bridge.stop()
    }
}
