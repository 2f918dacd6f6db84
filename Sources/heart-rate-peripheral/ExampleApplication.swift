import BLEPeripheral
import Logging
import Synchronization

/// The application side: answers requests, keeps the echo value, and pushes the heart rate and the
/// counter to subscribers, pausing on `false` from `updateValue` until "ready to update".
///
/// Updates run on the host's monotonic timer (no task wakes per tick) and only while someone is
/// subscribed, so an idle peripheral costs nothing. `--stream` sends Heart Rate Measurements as
/// fast as `updateValue` accepts them, resuming on "ready to update subscribers": the loop the
/// CoreBluetooth guide describes.
final class ExampleApplication: Sendable {
    enum Mode: Sendable {
        /// One Heart Rate Measurement per period. The timer may wake up to `leeway` late and then
        /// sends every measurement due by then (the controller only sends at connection events,
        /// 7.5 ms apart or more, so a few milliseconds cost nothing on air and save wake-ups).
        case periodic(Duration, leeway: Duration)
        /// As many as the transmit queues take.
        case stream
    }

    struct State {
        var echo: [UInt8] = Array("hello".utf8)
        var counter: UInt32 = 0
        var heartRateSubscribers: Set<ConnectedCentral> = []
        var counterSubscribers: Set<ConnectedCentral> = []
        var heartRateTimer: RepeatingTimer?
        var counterTimer: RepeatingTimer?
        var counterSending = false
        var waitingForRoom = false
        var step = 0
        var streamed = 0
        /// One thread streams at a time; a readiness call meanwhile asks it to go round again.
        var streaming = false
        var streamAgain = false
    }

    let manager: PeripheralManager
    let logger: Logger
    let mode: Mode
    let clock: any HostClock
    private let state = Mutex(State())

    init(manager: PeripheralManager, logger: Logger, mode: Mode, clock: any HostClock = SystemClock.shared) {
        self.manager = manager
        self.logger = logger
        self.mode = mode
        self.clock = clock
    }

    func run() async {
        if case .stream = mode {
            // Refill on the host's thread the moment room comes back: no task switch per refill.
            manager.setReadyToUpdateHandler { [weak self] _ in self?.streamHeartRate() }
        }
        await handleEvents()
        stopTimers()
    }

    func stopTimers() {
        let timers = state.withLock { state in
            defer { state.heartRateTimer = nil; state.counterTimer = nil }
            return [state.heartRateTimer, state.counterTimer]
        }
        timers.forEach { $0?.cancel() }
    }

    // MARK: Events

    private func handleEvents() async {
        for await event in manager.events {
            if Task.isCancelled { return }
            switch event {
            case let .centralConnected(central): logger.info("central connected \(central)")
            case let .centralDisconnected(central, reason):
                subscriptionEnded(central, ExampleServices.measurement)
                subscriptionEnded(central, ExampleServices.counter)
                logger.info("central disconnected \(central) (\(reason))")
            case let .mtuChanged(central, mtu): logger.info("mtu \(central) \(mtu)")
            case let .securityChanged(central, security): logger.info("security \(central) \(security)")
            case let .paired(central, bonded): logger.info("paired \(central)\(bonded ? ", bonded" : "")")
            case let .pairingFailed(central, reason, detail): logger.warning("pairing with \(central) failed: \(reason) (\(detail))")
            case let .subscribed(central, characteristic):
                logger.info("subscribed \(central) \(ExampleServices.uuid(of: characteristic))")
                subscriptionStarted(central, characteristic)
            case let .unsubscribed(central, characteristic):
                subscriptionEnded(central, characteristic)
                logger.info("unsubscribed \(central) \(ExampleServices.uuid(of: characteristic))")
            case let .readRequest(request): answer(request)
            case let .writeRequests(batch): answer(batch)
            case let .readyToUpdateSubscribers(centrals):
                state.withLock { $0.waitingForRoom = false }
                logger.info("ready to update \(centrals.count) central(s)")
            case let .indicationsAbandoned(central, updates):
                logger.info("indications abandoned \(central): \(updates.count)")
            case let .indicationTimedOut(central):
                logger.warning("indication timed out \(central)")
            case .indicationConfirmed:
                break
            case let .advertisingStarted(plan):
                logger.info("advertising enabled: \(plan.advertisingData.hexString) / \(plan.scanResponseData.hexString)")
            case let .stateChanged(newState): logger.info("state \(newState)")
            case let .controllerLost(loss):
                // Nothing left to serve: the process ends (non-zero) instead of idling for ever.
                logger.error("\(loss), exiting")
                return
            }
        }
    }

    private func subscriptionStarted(_ central: ConnectedCentral, _ characteristic: CharacteristicID) {
        switch characteristic {
        case ExampleServices.measurement:
            let first = state.withLock { $0.heartRateSubscribers.insert(central).inserted && $0.heartRateSubscribers.count == 1 }
            guard first else { return }
            switch mode {
            case let .periodic(period, leeway):
                // Ticks the leeway deferred are sent, with slack for a late wake-up (at least 10 ms);
                // ticks missed beyond that (a stalled process) are not: they would be stale.
                let deferrable = Int64((leeway + max(leeway, .milliseconds(10))) / period)
                let timer = clock.repeating(every: period, leeway: leeway) { [weak self] skipped in
                    guard let self else { return }
                    manager.batchingUpdates { heartRateTicks(1 + min(skipped, deferrable)) }
                }
                state.withLock { $0.heartRateTimer = timer }
            case .stream:
                streamHeartRate()
            }
        case ExampleServices.counter:
            let first = state.withLock { $0.counterSubscribers.insert(central).inserted && $0.counterSubscribers.count == 1 }
            guard first else { return }
            let timer = clock.repeating(every: .milliseconds(200)) { [weak self] _ in self?.counterTick() }
            state.withLock { $0.counterTimer = timer }
        default:
            break
        }
    }

    private func subscriptionEnded(_ central: ConnectedCentral, _ characteristic: CharacteristicID) {
        let timer: RepeatingTimer? = state.withLock { state in
            switch characteristic {
            case ExampleServices.measurement:
                guard state.heartRateSubscribers.remove(central) != nil, state.heartRateSubscribers.isEmpty else { return nil }
                return state.heartRateTimer.take()
            case ExampleServices.counter:
                guard state.counterSubscribers.remove(central) != nil, state.counterSubscribers.isEmpty else { return nil }
                return state.counterTimer.take()
            default:
                return nil
            }
        }
        timer?.cancel()
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

    /// `count` periodic Heart Rate Measurements, on the timer thread: `[flags 0x00, bpm]` each.
    private func heartRateTicks(_ count: Int64) {
        for _ in 0..<count {
            let step: Int? = state.withLock { $0.waitingForRoom ? nil : $0.step }
            guard let step else { return }
            let value = Self.periodicValues[step % Self.periodicValues.count]
            logger.debug("notify 2A37 \(value.hexString)")
            guard manager.updateValue(value, for: ExampleServices.measurement) else {
                state.withLock { $0.waitingForRoom = true }
                logger.info("queue full")
                return
            }
            state.withLock { $0.step += 1 }
        }
    }

    /// Flags 0x00, bpm 60…99: built once so updates allocate nothing per value.
    private static let periodicValues: [[UInt8]] = (60..<100).map { [0x00, UInt8($0)] }

    /// Heart Rate Measurements until `updateValue` says the queues are full; "ready to update"
    /// calls it again. 20 octets each (see `streamValues`).
    ///
    /// Called from the events task (first subscriber) and from the ready handler (transport
    /// thread, or re-entrantly inside `updateValue`): one caller streams, the others only ask it
    /// to try again, so values go out once each and in order.
    private func streamHeartRate() {
        let start = state.withLock { state -> Bool in
            if state.streaming { state.streamAgain = true }
            defer { state.streaming = true }
            return !state.streaming
        }
        guard start else { return }
        repeat {
            while true {
                let next: Int? = state.withLock { $0.heartRateSubscribers.isEmpty ? nil : $0.streamed }
                guard let next, manager.updateValue(Self.streamValues[next % Self.streamValues.count], for: ExampleServices.measurement) else { break }
                state.withLock { $0.streamed += 1 }
            }
        } while state.withLock { state -> Bool in
            defer { state.streamAgain = false }
            if !state.streamAgain { state.streaming = false }
            return state.streamAgain
        }
    }

    /// Flags 0x10 (RR-intervals present), bpm 60…99, nine RR-intervals of that rate (1/1024 s):
    /// 20 octets, built once so streaming allocates nothing per value.
    private static let streamValues: [[UInt8]] = (60..<100).map { bpm in
        let interval = UInt16(60_000 * 1024 / 1000 / bpm)
        return [0x10, UInt8(bpm)] + (0..<9).flatMap { _ in [UInt8(truncatingIfNeeded: interval), UInt8(truncatingIfNeeded: interval >> 8)] }
    }

    /// Indicates the next counter value; indications are never dropped, so it waits for room.
    private func counterTick() {
        let next: UInt32? = state.withLock { state in
            guard !state.counterSubscribers.isEmpty, !state.counterSending else { return nil }
            state.counterSending = true
            return state.counter &+ 1
        }
        guard let next else { return }
        Task {
            defer { state.withLock { $0.counterSending = false } }
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
