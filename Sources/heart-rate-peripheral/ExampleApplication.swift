import ATT
import BLECore
import GATT
import Logging
import Peripheral
import Synchronization

/// The application side: answers requests, keeps the echo value, and pushes the heart rate and the
/// counter to subscribers, pausing on `false` from `updateValue` until "ready to update".
final class ExampleApplication: Sendable {
    struct State {
        var echo: [UInt8] = Array("hello".utf8)
        var counter: UInt32 = 0
        var counterSubscribers: Set<UInt16> = []
        var waitingForRoom = false
    }

    let manager: PeripheralManager
    let logger: Logger
    let updateInterval: Duration
    private let state = Mutex(State())

    init(manager: PeripheralManager, logger: Logger, updateInterval: Duration) {
        self.manager = manager
        self.logger = logger
        self.updateInterval = updateInterval
    }

    func run() async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.handleEvents() }
            group.addTask { await self.pushHeartRate() }
            group.addTask { await self.pushCounter() }
            await group.waitForAll()
        }
    }

    // MARK: Events

    private func handleEvents() async {
        for await event in manager.events {
            switch event {
            case let .centralConnected(central): logger.info("central connected \(central)")
            case let .centralDisconnected(central, reason):
                _ = state.withLock { $0.counterSubscribers.remove(central.handle) }
                logger.info("central disconnected \(central) (\(reason))")
            case let .mtuChanged(central, mtu): logger.info("mtu \(central) \(mtu)")
            case let .subscribed(central, characteristic):
                if characteristic == ExampleServices.counter { _ = state.withLock { $0.counterSubscribers.insert(central.handle) } }
                logger.info("subscribed \(central) \(ExampleServices.uuid(of: characteristic))")
            case let .unsubscribed(central, characteristic):
                if characteristic == ExampleServices.counter { _ = state.withLock { $0.counterSubscribers.remove(central.handle) } }
                logger.info("unsubscribed \(central) \(ExampleServices.uuid(of: characteristic))")
            case let .readRequest(request): answer(request)
            case let .writeRequests(batch): answer(batch)
            case .readyToUpdateSubscribers:
                state.withLock { $0.waitingForRoom = false }
                logger.info("ready to update")
            case let .advertisingStarted(plan):
                logger.info("advertising enabled: \(plan.advertisingData.hexString) / \(plan.scanResponseData.hexString)")
            case let .stateChanged(newState): logger.info("state \(newState)")
            }
        }
    }

    private func answer(_ request: ReadRequest) {
        let value: Result<[UInt8], ATTErrorCode>
        switch request.characteristic {
        case ExampleServices.echo: value = .success(state.withLock { $0.echo })
        case ExampleServices.counter: value = .success(littleEndian(state.withLock { $0.counter }))
        default: value = .failure(.readNotPermitted)
        }
        report(try? manager.respond(to: request, with: value))
    }

    private func answer(_ batch: WriteBatch) {
        // The batch succeeds or fails as a whole: check everything before applying anything.
        for request in batch.requests where request.characteristic == ExampleServices.controlPoint && request.value != [0x01] {
            report(try? manager.respond(to: batch, with: .failure(.application(0))))
            return
        }
        for request in batch.requests {
            if request.characteristic == ExampleServices.echo { state.withLock { $0.echo = request.value } }
            logger.info("write \(batch.central) \(ExampleServices.uuid(of: request.characteristic)) \(request.value.hexString)")
        }
        report(try? manager.respond(to: batch, with: .success(())))
    }

    private func report(_ answered: Void?) {
        if answered == nil { logger.error("a request could not be answered (already answered or expired)") }
    }

    // MARK: Updates

    private func pushHeartRate() async {
        var step = 0
        while !Task.isCancelled {
            try? await Task.sleep(for: updateInterval)
            guard !state.withLock({ $0.waitingForRoom }) else { continue }
            let value: [UInt8] = [0x00, UInt8(60 + step % 40)]
            logger.debug("notify 2A37 \(value.hexString)")
            if manager.updateValue(value, for: ExampleServices.measurement) {
                step += 1
            } else {
                state.withLock { $0.waitingForRoom = true }
                logger.info("queue full")
            }
        }
    }

    private func pushCounter() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(200))
            let next: UInt32? = state.withLock { $0.counterSubscribers.isEmpty ? nil : $0.counter &+ 1 }
            guard let next else { continue }
            // Indications are never dropped: wait for room rather than skip a counter value.
            do {
                try await manager.updateValueWaitingForRoom(littleEndian(next), for: ExampleServices.counter)
            } catch {
                return
            }
            state.withLock { $0.counter = next }
            logger.info("indicate \(ExampleServices.counterUUID) \(littleEndian(next).hexString)")
        }
    }

    private func littleEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8),
         UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 24)]
    }
}
