import ATT
import BLECore
import GATT

/// A request on the air, waiting for its response.
struct PendingRequest {
    let id: UInt64
    let request: ATTOpcode
    let continuation: CheckedContinuation<Result<ATTPDU, GATTClientError>, Never>
    var timer: TimerHandle?
}

typealias TurnWaiter = CheckedContinuation<Result<Void, GATTClientError>, Never>

/// What `shut` took out of the state, to be resumed outside the lock.
struct FailedWork {
    var pending: PendingRequest?
    var waiters: [TurnWaiter] = []

    /// The outstanding request fails with `pendingError`, queued procedures with `error`.
    func resumeAll(with error: GATTClientError, pendingError: GATTClientError? = nil) {
        if let pending {
            _ = pending.timer?.cancel()
            pending.continuation.resume(returning: .failure(pendingError ?? error))
        }
        for waiter in waiters { waiter.resume(returning: .failure(error)) }
    }
}

/// Everything the client knows about its link, behind one lock.
struct ClientState {
    /// Once set, every new procedure fails with it at once.
    var terminal: GATTClientError?
    /// A procedure holds the bearer; others wait in `turnWaiters`, first come first served.
    var busy = false
    var turnWaiters: [TurnWaiter] = []
    var pending: PendingRequest?
    var nextID: UInt64 = 0
    var mtuExchanged = false
    var cache = DiscoveryCache()
    /// CCCD handles of characteristics we subscribed to, by value handle.
    var subscriptions: [UInt16: UInt16] = [:]
    var serviceChangedHandle: UInt16?
    var droppedNotifications = 0
    var droppedIndications = 0
    /// A Write Without Response found no room: signal `readyToSendWriteWithoutResponse` at the next drain.
    var wantsReadySignal = false

    /// Stops the bearer for good; returns the work to fail outside the lock.
    mutating func shut(_ reason: GATTClientError) -> FailedWork {
        // A link that drops after a timeout is best described as disconnected.
        if terminal == nil || reason == .disconnected { terminal = reason }
        let failed = FailedWork(pending: pending.take(), waiters: turnWaiters)
        turnWaiters = []
        return failed
    }

    /// Drops cached discovery results and subscriptions that overlap `range` (Service Changed).
    mutating func invalidate(_ range: ClosedRange<UInt16>) {
        cache.invalidate(range)
        subscriptions = subscriptions.filter { !range.contains($0.key) && !range.contains($0.value) }
    }
}

/// Discovery results, so a later procedure (subscribing, Service Changed) can use them.
struct DiscoveryCache {
    /// Primary services by declaration handle.
    var services: [UInt16: RemoteService] = [:]
    /// Characteristics by their service's declaration handle.
    var characteristics: [UInt16: [RemoteCharacteristic]] = [:]
    /// Descriptors by their characteristic's value handle, with the characteristic's handles.
    var descriptors: [UInt16: (handles: ClosedRange<UInt16>, list: [RemoteDescriptor])] = [:]

    mutating func invalidate(_ range: ClosedRange<UInt16>) {
        services = services.filter { !$0.value.handles.overlaps(range) }
        characteristics = characteristics.filter { entry in
            !entry.value.contains { $0.handles.overlaps(range) } && !range.contains(entry.key)
        }
        descriptors = descriptors.filter { !$0.value.handles.overlaps(range) }
    }

    func clientConfigurationHandle(of characteristic: RemoteCharacteristic) -> UInt16? {
        guard let entry = descriptors[characteristic.valueHandle], entry.handles == characteristic.handles else { return nil }
        return entry.list.first { $0.uuid == GATTUUID.clientCharacteristicConfiguration }?.handle
    }
}
