import ATT
import BLECore
import GATT
import GATTServer
import HCI
import Synchronization

/// A delegate that serves values from a table, records every call and can hold one read open.
final class FakeDelegate: GATTServerDelegate {
    struct WriteCall: Equatable, Sendable {
        let items: [GATTWriteItem]
        let connection: UInt16
        let kind: GATTWriteKind
    }

    struct SubscriptionCall: Equatable, Sendable {
        let connection: UInt16
        let characteristic: CharacteristicID
        let configuration: ClientConfiguration
    }

    struct State: Sendable {
        var values: [GATTReadRequestKey: [UInt8]] = [:]
        /// What `indicationConfirmed` answers (the value handle of the confirmed indication).
        var confirmedHandle: UInt16?
        var readError: ATTErrorCode?
        var writeError: ATTErrorCode?
        var reads: [GATTReadRequest] = []
        var writes: [WriteCall] = []
        var subscriptions: [SubscriptionCall] = []
        /// How many PDUs the server had sent when each subscription change was announced.
        var sentAtSubscription: [Int] = []
        var confirmations: [UInt16] = []
        var mtuChanges: [UInt16: [Int]] = [:]
        var gated: CharacteristicID?
        var gateWaiter: CheckedContinuation<Void, Never>?
    }

    struct GATTReadRequestKey: Hashable, Sendable {
        let characteristic: CharacteristicID
        let descriptor: BluetoothUUID?
    }

    let state = Mutex(State())
    private let enteredStream: AsyncStream<CharacteristicID>
    private let entered: AsyncStream<CharacteristicID>.Continuation

    init() {
        (enteredStream, entered) = AsyncStream.makeStream(of: CharacteristicID.self)
    }

    func setValue(_ value: [UInt8], for id: CharacteristicID, descriptor: BluetoothUUID? = nil) {
        state.withLock { $0.values[GATTReadRequestKey(characteristic: id, descriptor: descriptor)] = value }
    }

    var reads: [GATTReadRequest] { state.withLock { $0.reads } }
    var writes: [WriteCall] { state.withLock { $0.writes } }
    var subscriptions: [SubscriptionCall] { state.withLock { $0.subscriptions } }
    var confirmations: [UInt16] { state.withLock { $0.confirmations } }
    func mtuChanges(_ connection: UInt16) -> [Int] { state.withLock { $0.mtuChanges[connection] ?? [] } }

    /// The next read of `id` waits until `release()`.
    func gate(_ id: CharacteristicID) { state.withLock { $0.gated = id } }

    /// Returns once a gated read is waiting.
    func waitUntilGated() async -> CharacteristicID? {
        var iterator = enteredStream.makeAsyncIterator()
        return await iterator.next()
    }

    func release() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            defer { state.gateWaiter = nil }
            return state.gateWaiter
        }
        waiter?.resume()
    }

    // MARK: GATTServerDelegate

    func read(_ request: GATTReadRequest) async -> Result<[UInt8], ATTErrorCode> {
        let gated = state.withLock { state -> Bool in
            state.reads.append(request)
            guard state.gated == request.characteristic else { return false }
            state.gated = nil
            return true
        }
        if gated {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                state.withLock { $0.gateWaiter = continuation }
                entered.yield(request.characteristic)
            }
        }
        return state.withLock { state in
            if let error = state.readError { return .failure(error) }
            let key = GATTReadRequestKey(characteristic: request.characteristic, descriptor: request.descriptor)
            return .success(state.values[key] ?? [])
        }
    }

    func write(_ items: [GATTWriteItem], link: Link, kind: GATTWriteKind) async -> Result<Void, ATTErrorCode> {
        state.withLock { state in
            state.writes.append(WriteCall(items: items, connection: link.handle, kind: kind))
            if let error = state.writeError { return .failure(error) }
            for item in items {
                state.values[GATTReadRequestKey(characteristic: item.characteristic, descriptor: item.descriptor)] = item.value
            }
            return .success(())
        }
    }

    func subscriptionChanged(link: Link, characteristic: CharacteristicID, configuration: ClientConfiguration) {
        let sent = sentCount.withLock { $0 }?() ?? -1
        state.withLock {
            $0.subscriptions.append(SubscriptionCall(connection: link.handle, characteristic: characteristic,
                                                     configuration: configuration))
            $0.sentAtSubscription.append(sent)
        }
    }

    /// The harness's count of PDUs sent, read when a subscription changes.
    let sentCount = Mutex<(@Sendable () -> Int)?>(nil)
    var sentAtSubscription: [Int] { state.withLock { $0.sentAtSubscription } }

    func indicationConfirmed(link: Link) -> UInt16? {
        state.withLock { state in
            state.confirmations.append(link.handle)
            return state.confirmedHandle
        }
    }

    func mtuChanged(link: Link, mtu: Int) {
        state.withLock { $0.mtuChanges[link.handle, default: []].append(mtu) }
    }
}
