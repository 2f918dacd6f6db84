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

/// Each new driver end to end on the simulated board: configuration entry → simulated chip (or fake
/// sysfs tree) → real driver → published characteristic and status.
@Suite struct NewDriverBridgeTests {
    let clock = ManualClock()
    let sensorClock = SimulatedSensorClock()
    let sink = RecordingSink()
    let statuses = Recorder<SensorStatus>()

    func makeBridge(_ sensors: [SensorConfiguration]) -> SensorBridge {
        let board = SimulatedBoard(clock: sensorClock)
        let bridge = SensorBridge(configuration: Fixtures.configuration(sensors), sink: sink,
                                  factory: SensorSourceFactory(board: Fixtures.board, simulation: board),
                                  clock: clock, logger: Logger(label: "new-driver-test"))
        bridge.setStatusObserver { statuses.append($0) }
        return bridge
    }

    /// Reads once (the poller's first poll is due at start) and returns the sensor's status.
    func firstStatus(_ sensor: SensorConfiguration) async throws -> SensorStatus {
        let bridge = makeBridge([sensor])
        bridge.start()
        clock.advance(by: .zero)
        await statuses.wait { items in items.contains { $0.state != .starting } }
        bridge.stop()
        return try #require(bridge.sensorStatus().first)
    }

    struct Thermometer: Sendable, CustomStringConvertible {
        var driver: SensorDriver
        var options: DriverOptions
        var offsets: [Quantity: Double]
        var simulated: Double
        var expected: Double
        var description: String { driver.rawValue }
    }

    static let thermometers = [
        Thermometer(driver: .tmp117, options: DriverOptions(TMP117Driver.Settings(conversionCycle: .ms125, averaging: .x1)),
                    offsets: [.temperature: -0.25], simulated: 36.8, expected: 36.55),
        Thermometer(driver: .max30205, options: DriverOptions(MAX30205Driver.Settings(mode: .oneShot, dataFormat: .extended)), offsets: [:], simulated: 37.4, expected: 37.4),
        Thermometer(driver: .mlx90614, options: DriverOptions(), offsets: [.temperature: 0.5], simulated: 34.0, expected: 34.5),
    ]

    @Test(arguments: thermometers)
    func bodyThermometersFeedTheHealthThermometer(row: Thermometer) async throws {
        let sensor = SensorConfiguration(name: "body", driver: row.driver, pollInterval: .seconds(1), calibrationOffsets: row.offsets,
                                         options: row.options, publish: [.temperatureMeasurement],
                                         simulation: SimulationSettings(celsius: row.simulated))
        let status = try await firstStatus(sensor)
        #expect(status.state == .ok, "\(status.error ?? "")")
        // Within the chips' resolution (MLX90614: 0.02 K) of the simulated value plus the offset.
        #expect(abs((status.value ?? 0) - row.expected) < 0.011)
        let measurement = try TemperatureMeasurement(decoding: try #require(sink.values(of: HealthThermometerPublisher.measurement).first))
        #expect(abs((measurement.temperature.doubleValue ?? 0) - row.expected) < 0.011)
    }

    @Test(arguments: [SensorDriver.aht20, .shtc3, .hdc1080])
    func humiditySensorsFeedEnvironmentalSensing(driver: SensorDriver) async throws {
        let sensor = SensorConfiguration(name: "room", driver: driver, pollInterval: .seconds(1),
                                         calibrationOffsets: [.humidity: 2], publish: [.environmentalTemperature, .humidity],
                                         simulation: SimulationSettings(celsius: 23.4, relativeHumidity: 40))
        let status = try await firstStatus(sensor)
        #expect(status.state == .ok, "\(status.error ?? "")")
        #expect(status.readings.map(\.quantity) == ["temperature", "humidity"])
        #expect(abs(status.readings[0].value - 23.4) < 0.01)
        #expect(abs(status.readings[1].value - 42) < 0.01)
        let humidity = try #require(sink.values(of: CharacteristicID("environmental-sensing.humidity")).first)
        #expect(abs((try Humidity(decoding: humidity).percent ?? 0) - 42) < 0.01)
    }

    @Test func iioDeviceByNameFeedsEnvironmentalSensing() async throws {
        let dht = SensorConfiguration(name: "dht", driver: .iio, pollInterval: .seconds(1), publish: [.environmentalTemperature, .humidity],
                                      simulation: SimulationSettings(celsius: 19.5, relativeHumidity: 61), device: "dht11")
        let status = try await firstStatus(dht)
        #expect(status.state == .ok, "\(status.error ?? "")")
        #expect(status.readings.map(\.value) == [19.5, 61])
        let temperature = try #require(sink.values(of: CharacteristicID("environmental-sensing.es-temperature")).first)
        #expect(try ESTemperature(decoding: temperature).celsius == 19.5)
    }

    @Test func hwmonThermometerFeedsTheHealthThermometer() async throws {
        let probe = SensorConfiguration(name: "probe", driver: .hwmon, pollInterval: .seconds(1), publish: [.temperatureMeasurement],
                                        simulation: SimulationSettings(celsius: 36.125), device: "w1_slave_temp")
        let status = try await firstStatus(probe)
        #expect(status.state == .ok, "\(status.error ?? "")")
        #expect(status.value == 36.125)
    }

    @Test func max30100FeedsTheHeartRateService() async throws {
        let sensor = SensorConfiguration(name: "pulse", driver: .max30100, pollInterval: .milliseconds(100),
                                         publish: [.heartRateMeasurement], simulation: SimulationSettings(beatsPerMinute: 90))
        let bridge = makeBridge([sensor])
        bridge.start()
        clock.advance(by: .zero)
        // Each tick: the poller has armed its next read (barrier: the pending timer), the chip samples
        // 100 ms more, the poller drains its FIFO, and its status is the barrier for the next tick.
        await statuses.wait { items in items.count(where: { $0.name == "pulse" }) >= 1 }
        for tick in 1...100 {
            await clock.waitForTimers(atLeast: 1)
            sensorClock.advance(milliseconds: 100)
            clock.advance(by: .milliseconds(100))
            await statuses.wait { items in items.count(where: { $0.name == "pulse" }) >= tick + 1 }
        }
        bridge.stop()
        let status = try #require(bridge.sensorStatus().first)
        #expect(status.state == .ok, "\(status.error ?? "")")
        #expect(abs((status.value ?? 0) - 90) < 3)
        let last = try #require(sink.values(of: HeartRatePublisher.measurement).last)
        let measurement = try HeartRateMeasurement(decoding: last)
        #expect(abs(Int(measurement.heartRate) - 90) <= 3)
        #expect(measurement.sensorContact == .detected)
    }

    /// BMP280/BME280 datasheet 8.2 example: calibration words from 0x88, then the data registers
    /// holding adc_P = 415148, adc_T = 519888, adc_H = 30000.
    static let exampleBlock1: [UInt8] = [0x70, 0x6B, 0x43, 0x67, 0x18, 0xFC, 0x7D, 0x8E, 0x43, 0xD6, 0xD0, 0x0B, 0x27,
                                         0x0B, 0x8C, 0x00, 0xF9, 0xFF, 0x8C, 0x3C, 0xF8, 0xC6, 0x70, 0x17, 0x00, 0x4B]
    static let exampleData: [UInt8] = [0x65, 0x5A, 0xC0, 0x7E, 0xED, 0x00, 0x75, 0x30]

    /// The first status of a BME280 simulated from raw registers given in the configuration.
    func bme280Status(_ registers: [SimulationSettings.RegisterBlock]) async throws -> SensorStatus {
        let sensor = SensorConfiguration(name: "room", driver: .bme280, pollInterval: .seconds(1), publish: [.environmentalTemperature],
                                         simulation: SimulationSettings(registers: registers))
        let status = try await firstStatus(sensor)
        #expect(status.state == .ok, "\(status.error ?? "")")
        return status
    }

    @Test func rawRegistersFromTheConfigurationReachTheDriver() async throws {
        let status = try await bme280Status([
            .init(start: 0x88, bytes: Self.exampleBlock1), .init(start: 0xE1, bytes: [0x6A, 0x01, 0x00, 0x14, 0x24, 0x03, 0x1E]),
            .init(start: 0xF7, bytes: Self.exampleData),
        ])
        // Datasheet 8.2: 25.08 °C and 100653.27 Pa.
        #expect(status.value == 25.08)
        let pressure = try #require(status.readings.first { $0.quantity == "pressure" })
        #expect(abs(pressure.value - 100_653.27) < 0.05)
    }

    /// A calibration different from the simulated chip's built-in one, so the test fails if the
    /// 0x88 block is not loaded: dig_T2 = 26000 (0x6590) instead of the example's 26435. Datasheet
    /// 4.2.3 integer formula by hand for adc_T = 519888: t_fine = 126302, T = 24.67 °C.
    @Test func rawCalibrationRegistersReplaceTheSimulatorsOwn() async throws {
        var block1 = Self.exampleBlock1
        block1[2] = 0x90
        block1[3] = 0x65
        let status = try await bme280Status([.init(start: 0x88, bytes: block1), .init(start: 0xF7, bytes: Self.exampleData)])
        #expect(status.value == 24.67)
    }
}
