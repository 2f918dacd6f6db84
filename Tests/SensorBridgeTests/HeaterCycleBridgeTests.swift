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

/// An SHT4x with a heater schedule on the simulated board: the poll that pulses and the polls in the
/// cool-down pause the sensor (status `paused`, last ambient values kept), nothing hot is published,
/// and ambient readings resume by themselves without the back-off of a failure.
@Suite struct HeaterCycleBridgeTests {
    let clock = ManualClock()
    let sensorClock = SimulatedSensorClock()
    let sink = RecordingSink()
    let statuses = Recorder<SensorStatus>()

    @Test func heaterPulsesPauseTheSensorAndNeverPublishTheHotDie() async throws {
        let sensor = SensorConfiguration(
            name: "cellar", driver: .sht4x, pollInterval: .seconds(1),
            options: DriverOptions(SHT4xDriver.Settings(heaterPulse: .init(power: .milliwatts20, duration: .milliseconds100),
                                   heaterEvery: .seconds(5), heaterCoolDown: .milliseconds(1500))),
            publish: [.environmentalTemperature, .humidity], simulation: SimulationSettings(celsius: 12, relativeHumidity: 92))
        let bridge = SensorBridge(configuration: Fixtures.configuration([sensor]), sink: sink,
                                  factory: SensorSourceFactory(board: Fixtures.board, simulation: SimulatedBoard(clock: sensorClock)),
                                  clock: clock, logger: Logger(label: "heater-cycle-test"))
        bridge.setStatusObserver { statuses.append($0) }
        bridge.start()
        await clock.waitForTimers(atLeast: 1)
        clock.advance(by: .zero)
        await statuses.wait { $0.count == 1 }

        // Polls at 1 s … 8 s: the pulse is due 5 s after the first read, its cool-down ends 1.6 s later.
        var states: [SensorStatus.State] = []
        for second in 1...8 {
            await clock.waitForTimers(atLeast: 1)
            sensorClock.advance(milliseconds: 1_000)
            clock.advance(by: .seconds(1))
            await statuses.wait { $0.count == second + 1 }
            let status = try #require(statuses.all.last)
            states.append(status.state)
            if status.state == .paused {
                // The last ambient values stay, and the message says why and until when.
                #expect(status.readings.map(\.quantity) == ["temperature", "humidity"])
                #expect(abs((status.value ?? 0) - 12) < 0.01)
                #expect(status.error?.contains(second == 5 ? "heater pulse (20 mW for 100 ms)" : "heater cool-down") == true,
                        "\(status.error ?? "")")
            }
        }
        bridge.stop()
        #expect(states == [.ok, .ok, .ok, .ok, .paused, .paused, .ok, .ok])
        let final = try #require(bridge.sensorStatus().first)
        #expect(final.failures == 0)
        #expect(final.reads == 9)

        // Every published temperature is the room's (12 °C), none the hot die's (14 °C in the model).
        let temperatures = try sink.values(of: CharacteristicID("environmental-sensing.es-temperature"))
            .map { try #require(try ESTemperature(decoding: $0).celsius) }
        #expect(!temperatures.isEmpty)
        #expect(temperatures.allSatisfy { abs($0 - 12) < 0.01 }, "\(temperatures)")
    }
}
