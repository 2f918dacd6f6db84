import BLECore
import BridgeConfiguration
import ControlSocket
import Sensors

/// One read of a configured sensor, outside the bridge: the source the pollers would open, read
/// once and closed, with the result as `status` reports it. For `blesensor doctor` when no daemon
/// holds the hardware. Blocking (bus transfers, conversion delays): call it on a thread of its own.
public enum SingleRead {
    public static func status(of sensor: SensorConfiguration, factory: SensorSourceFactory,
                              clock: any HostClock = SystemClock.shared) -> SensorStatus {
        let book = SensorStatusBook(sensors: [sensor], clock: clock)
        let outcome: PollOutcome
        do {
            // One read, never reopened: a fresh heater memory, so it reads ambient and never pulses.
            let source = try factory.makeSource(for: sensor, heaterMemory: SHT4xHeaterCycle.Memory())
            defer { source.close() }
            outcome = .measured(try source.read())
        } catch {
            outcome = PollOutcome(error)
        }
        book.record(outcome, sensor: sensor.name)
        return book.status(of: sensor.name) ?? SensorStatus(name: sensor.name, driver: sensor.driver.rawValue, value: nil, unit: "",
                                                           ageSeconds: nil, state: .starting, error: nil, readings: [], reads: 0, failures: 0)
    }
}
