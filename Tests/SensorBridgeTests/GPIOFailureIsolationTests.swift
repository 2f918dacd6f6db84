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

/// A GPIO failure never stops the other sensors: a gpio-pulse sensor on a chip that does not exist
/// goes through the real libgpiod shim (1.6 or 2.x, whichever this build links), fails alone and
/// keeps being retried, while a simulated I2C sensor beside it reads and publishes.
@Suite struct GPIOFailureIsolationTests {
    let clock = ManualClock()
    let sensorClock = SimulatedSensorClock()
    let sink = RecordingSink()
    let statuses = Recorder<SensorStatus>()

    /// No machine these tests run on has a 98th GPIO chip.
    static let missingChip = "gpiochip97"

    static let sensors = [
        SensorConfiguration(name: "strap", driver: .gpioPulse, gpioLine: "GPIO17", pollInterval: .seconds(1),
                            publish: [.heartRateMeasurement]),
        SensorConfiguration(name: "room", driver: .bme280, pollInterval: .seconds(1),
                            publish: [.environmentalTemperature, .humidity, .pressure],
                            simulation: SimulationSettings(celsius: 21.5, relativeHumidity: 45, pascals: 101_325)),
    ]

    @Test func aGPIOSensorOnAMissingChipFailsAloneWhileTheI2CSensorPublishes() async throws {
        let board = SimulatedBoard(clock: sensorClock, gpioChips: [Self.missingChip])
        let bridge = SensorBridge(configuration: Fixtures.configuration(Self.sensors), sink: sink,
                                  factory: SensorSourceFactory(board: Fixtures.board, simulation: board),
                                  clock: clock, logger: Logger(label: "gpio-isolation-test"))
        bridge.setStatusObserver { statuses.append($0) }
        bridge.start()
        // Both pollers armed their first poll: then advancing fires both.
        await clock.waitForTimers(atLeast: Self.sensors.count)
        clock.advance(by: .zero)
        await statuses.wait { items in
            items.contains { $0.name == "room" && $0.state == .ok } && items.contains { $0.name == "strap" && $0.state == .failed }
        }
        let strap = try #require(bridge.sensorStatus().first { $0.name == "strap" })
        #expect(strap.error == GPIOError.chipNotFound(Self.missingChip).description, "\(strap.error ?? "no error")")
        #expect(strap.value == nil)
        let temperature = try #require(sink.values(of: CharacteristicID("environmental-sensing.es-temperature")).first)
        #expect(abs((try ESTemperature(decoding: temperature).celsius ?? 0) - 21.5) < 0.02)

        // Ten more seconds, one at a time, each once both pollers are idle again (their next poll
        // armed): the room sensor reads every second, the strap is retried at its back-off
        // (1 s, 2 s, 4 s ...) and fails the same way.
        let roomReads = try #require(bridge.sensorStatus().first { $0.name == "room" }).reads
        let strapFailures = strap.failures
        for _ in 0..<10 {
            await clock.waitForTimers(atLeast: Self.sensors.count)
            sensorClock.advance(milliseconds: 1_000)
            clock.advance(by: .seconds(1))
        }
        await clock.waitForTimers(atLeast: Self.sensors.count)
        let room = try #require(bridge.sensorStatus().first { $0.name == "room" })
        #expect(room.state == .ok)
        #expect(room.reads == roomReads + 10)
        let later = try #require(bridge.sensorStatus().first { $0.name == "strap" })
        #expect(later.state == .failed)
        #expect(later.failures >= strapFailures + 3, "retried at 1 s, 2 s and 4 s")
        #expect(later.error == GPIOError.chipNotFound(Self.missingChip).description)
        bridge.stop()
    }
}
