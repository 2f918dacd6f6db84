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
    /// The newest level; nil before the first reading and while the gauge fails (the format has no
    /// fault value, so a read then fails rather than return an old level).
    private let current = Mutex<UInt8?>(nil)

    init(sink: any UpdateSink) { self.sink = sink }

    func owns(_ characteristic: CharacteristicID) -> Bool { characteristic == Self.level }

    func read(_ characteristic: CharacteristicID, descriptor: BluetoothUUID?) -> Result<[UInt8], ATTErrorCode> {
        guard descriptor == nil, let level = current.withLock({ $0 }) else { return .failure(.unlikelyError) }
        return .success([level])
    }

    func publish(_ outcome: PollOutcome, to characteristic: PublishedCharacteristic) {
        guard case let .measured(reading) = outcome, let percent = reading.batteryPercent, percent.isFinite else {
            current.withLock { $0 = nil }
            return
        }
        // The gauge can report a little over 100 % when full; Battery Level is 0…100.
        let level = UInt8(min(100, max(0, percent.rounded())))
        let changed = current.withLock { current -> Bool in
            defer { current = level }
            return current != level
        }
        if changed { _ = sink.updateValue([level], for: Self.level) }
    }
}
