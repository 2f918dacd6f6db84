import ATT
import BLECore
import BridgeConfiguration
import GATT
import GATTNotify
import Peripheral
import SIGProfiles
import Synchronization

/// Battery 0x180F: 2A19 Battery Level from a fuel gauge, readable and notified when it changes.
final class BatteryPublisher: ServicePublisher {
    static let level = CharacteristicID("battery.level")

    let service = GATTService(uuid: BluetoothUUID(0x180F), characteristics: [
        GATTCharacteristic(id: BatteryPublisher.level, uuid: BluetoothUUID(0x2A19), properties: [.read, .notify], permissions: [.readable]),
    ])
    let updatePolicies: [CharacteristicID: UpdatePolicy] = [BatteryPublisher.level: .latestValue]
    private let sink: any UpdateSink
    private struct State {
        /// The newest level; nil before the first reading and while the gauge fails (the format has
        /// no fault value, so a read then fails rather than return an old level).
        var current: UInt8?
        /// The last level the subscribers took; a refused update is sent again on the next poll.
        var notified: UInt8?
    }

    private let state = Mutex(State())

    init(sink: any UpdateSink) { self.sink = sink }

    func owns(_ characteristic: CharacteristicID) -> Bool { characteristic == Self.level }

    func read(_ characteristic: CharacteristicID, descriptor: BluetoothUUID?) -> Result<[UInt8], ATTErrorCode> {
        guard descriptor == nil, let level = state.withLock({ $0.current }) else { return .failure(.unlikelyError) }
        return .success([level])
    }

    func publish(_ outcome: PollOutcome, to characteristic: PublishedCharacteristic) {
        guard !outcome.isPaused else { return }
        guard case let .measured(reading) = outcome, let percent = reading.batteryPercent, percent.isFinite else {
            state.withLock { $0.current = nil }
            return
        }
        // The gauge can report a little over 100 % when full; Battery Level is 0…100.
        let level = UInt8(min(100, max(0, percent.rounded())))
        let changed = state.withLock { state -> Bool in
            state.current = level
            return state.notified != level
        }
        guard changed, sink.updateValue([level], for: Self.level) else { return }
        state.withLock { $0.notified = level }
    }
}
