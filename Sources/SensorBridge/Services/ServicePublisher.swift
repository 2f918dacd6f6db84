import ATT
import BLECore
import BridgeConfiguration
import GATT
import GATTNotify
import Peripheral

/// One SIG service of the bridge: its GATT declaration, how its values are queued, the requests it
/// answers, and what a sensor's poll turns into on the air. Called from the sensor threads
/// (`publish`) and the bridge's event task (requests), so implementations lock their own state.
protocol ServicePublisher: AnyObject, Sendable {
    var service: GATTService { get }
    /// Queueing of each characteristic it updates (latest value, merge, indication).
    var updatePolicies: [CharacteristicID: UpdatePolicy] { get }
    func owns(_ characteristic: CharacteristicID) -> Bool
    func read(_ characteristic: CharacteristicID, descriptor: BluetoothUUID?) -> Result<[UInt8], ATTErrorCode>
    /// Checks one write of a batch; nothing is applied until every write of the batch passed.
    func check(_ write: WriteRequest) -> ATTErrorCode?
    func apply(_ write: WriteRequest)
    /// A poll of a sensor that feeds `characteristic`.
    func publish(_ outcome: PollOutcome, to characteristic: PublishedCharacteristic)
}

extension ServicePublisher {
    func check(_ write: WriteRequest) -> ATTErrorCode? { .writeNotPermitted }
    func apply(_ write: WriteRequest) {}
}

/// What publishers send updates through: the peripheral manager in the daemon, a recorder in tests.
public protocol UpdateSink: Sendable {
    func updateValue(_ value: [UInt8], for characteristic: CharacteristicID) -> Bool
    /// The updates `body` makes leave together (one write for the values of one poll).
    func batching(_ body: () -> Void)
}

extension UpdateSink {
    public func batching(_ body: () -> Void) { body() }
}

extension PeripheralManager: UpdateSink {
    public nonisolated func updateValue(_ value: [UInt8], for characteristic: CharacteristicID) -> Bool {
        updateValue(value, for: characteristic, onSubscribedCentrals: nil)
    }

    public nonisolated func batching(_ body: () -> Void) { batchingUpdates(body) }
}

extension Duration {
    /// Seconds as the services state intervals (2A21, ES Measurement): a part second counts as one.
    var wholeSecondsRoundedUp: Int64 {
        let (seconds, attoseconds) = components
        return attoseconds > 0 ? seconds + 1 : seconds
    }
}
