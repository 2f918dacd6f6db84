import BLECore
import BridgeConfiguration
import GATT
import Sensors
import Synchronization
import TestSupport
@testable import SensorBridge

struct Update: Sendable, Equatable {
    let characteristic: CharacteristicID
    let value: [UInt8]
}

/// Records every update the publishers send; `accepting` false plays a full queue.
final class RecordingSink: UpdateSink {
    let updates = Recorder<Update>()
    let accepting = Mutex(true)

    func updateValue(_ value: [UInt8], for characteristic: CharacteristicID) -> Bool {
        guard accepting.withLock({ $0 }) else { return false }
        updates.append(Update(characteristic: characteristic, value: value))
        return true
    }

    func values(of characteristic: CharacteristicID) -> [[UInt8]] {
        updates.all.filter { $0.characteristic == characteristic }.map(\.value)
    }
}

/// A scripted sensor: each read takes the next outcome (the last one repeats) and records when it ran.
final class ScriptedSource: SensorSource {
    private let script: Mutex<[Result<Measurement, SensorError>]>
    let readTimes = Recorder<MonotonicInstant>()
    let closed = Mutex(false)
    /// Runs inside the next read (a read that takes time: advance the clock here).
    let duringRead = Mutex<(@Sendable () -> Void)?>(nil)
    private let clock: any HostClock

    init(clock: any HostClock, _ script: [Result<Measurement, SensorError>]) {
        self.clock = clock
        self.script = Mutex(script)
    }

    func push(_ outcome: Result<Measurement, SensorError>) { script.withLock { $0.append(outcome) } }

    func read() throws(SensorError) -> Measurement {
        let next = script.withLock { script in script.count > 1 ? script.removeFirst() : script[0] }
        duringRead.withLock { $0.take() }?()
        readTimes.append(clock.now)
        return try next.get()
    }

    func close() { closed.withLock { $0 = true } }
}

enum Fixtures {
    static let board = BoardProfile(name: "simulated", model: "Simulated board", i2cBus: 1, gpioChips: ["gpiochip0"],
                                    transport: "virtual", simulated: true)

    static func configuration(_ sensors: [SensorConfiguration]) -> BridgeConfiguration {
        BridgeConfiguration(board: board, transport: "virtual", deviceName: "bridge-test", appearance: 0,
                            address: .persistentRandom,
                            advertising: AdvertisingSettings(interval: .milliseconds(100), services: [], maxCentrals: 4),
                            sensors: sensors,
                            deviceInformation: DeviceInformationSettings(manufacturer: "blesensor", model: "Simulated board"),
                            paths: PathSettings(stateDirectory: "/tmp", controlSocket: "/tmp/control.sock"))
    }

    static let measurementError = SensorError.bus(.noDevice(bus: 1, address: 0x48))
}
