import ATT
import BLECore

// One request at a time on the bearer (Core Vol 3 Part F 3.3.2), procedures in FIFO order, each
// request bounded by the transaction timeout (3.3.3).
extension GATTClient {
    /// Runs `body` while holding the bearer: procedures queue first come, first served.
    func procedure<T>(_ body: () async throws(GATTClientError) -> T) async throws(GATTClientError) -> T {
        try await acquireTurn()
        defer { releaseTurn() }
        return try await body()
    }

    /// A request is sent and waits for its response: what a fuzzer driving the peer answers next.
    @_spi(Fuzzing) public var isAwaitingResponse: Bool { state.withLock { $0.pending != nil } }

    /// Procedures waiting for the bearer (for tests and diagnostics).
    var queuedProcedureCount: Int { state.withLock { $0.turnWaiters.count } }

    private func acquireTurn() async throws(GATTClientError) {
        let result = await withCheckedContinuation { (continuation: TurnWaiter) in
            let immediate = state.withLock { state -> Result<Void, GATTClientError>? in
                if let terminal = state.terminal { return .failure(terminal) }
                guard state.busy else {
                    state.busy = true
                    return .success(())
                }
                state.turnWaiters.append(continuation)
                return nil
            }
            if let immediate { continuation.resume(returning: immediate) }
        }
        try result.get()
    }

    /// Hands the bearer to the next queued procedure (it stays busy), or frees it.
    private func releaseTurn() {
        let next = state.withLock { state -> TurnWaiter? in
            guard state.terminal == nil, !state.turnWaiters.isEmpty else {
                state.busy = false
                return nil
            }
            return state.turnWaiters.removeFirst()
        }
        next?.resume(returning: .success(()))
    }

    /// Sends `request` and returns the response that answers it; an Error Response becomes
    /// `.attError`. Only called inside `procedure`.
    func transact(_ request: ATTPDU) async throws(GATTClientError) -> ATTPDU {
        let bytes = request.encode()
        let opcode = request.opcode
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<ATTPDU, GATTClientError>, Never>) in
            let registered = state.withLock { state -> Result<UInt64, GATTClientError> in
                if let terminal = state.terminal { return .failure(terminal) }
                state.nextID += 1
                state.pending = PendingRequest(id: state.nextID, request: opcode, continuation: continuation)
                return .success(state.nextID)
            }
            let id: UInt64
            switch registered {
            case let .failure(error):
                continuation.resume(returning: .failure(error))
                return
            case let .success(registeredID):
                id = registeredID
            }
            // Armed before sending: a peer may answer from inside `send`.
            let timer = configuration.clock.schedule(after: configuration.transactionTimeout) { [weak self] in
                self?.transactionTimedOut(id)
            }
            let armed = state.withLock { state -> Bool in
                guard state.pending?.id == id else { return false }
                state.pending?.timer = timer
                return true
            }
            if !armed { _ = timer.cancel() }
            sendRequest(bytes, id: id)
        }
        return try result.get()
    }

    private func sendRequest(_ bytes: [UInt8], id: UInt64) {
        switch output.send(link, bytes) {
        case .sent:
            return
        case .closed:
            complete(id, with: .failure(.disconnected))
        case .full:
            // The transmit queue drains on its own; the transaction timer still bounds the wait.
            Task { [self] in
                while state.withLock({ $0.pending?.id == id }) {
                    await output.waitForRoom(link)
                    guard state.withLock({ $0.pending?.id == id }) else { return }
                    switch output.send(link, bytes) {
                    case .sent: return
                    case .closed: complete(id, with: .failure(.disconnected)); return
                    case .full: continue
                    }
                }
            }
        }
    }

    /// Resumes request `id` if it is still outstanding (a late answer after a failure is dropped).
    func complete(_ id: UInt64, with result: Result<ATTPDU, GATTClientError>) {
        let pending = state.withLock { state -> PendingRequest? in
            guard state.pending?.id == id else { return nil }
            return state.pending.take()
        }
        guard let pending else { return }
        _ = pending.timer?.cancel()
        pending.continuation.resume(returning: result)
    }

    /// No more ATT on this bearer (3.3.3): the request fails with `.timeout`, every later one with
    /// `.bearerClosed`, and the facade hears of it to disconnect.
    private func transactionTimedOut(_ id: UInt64) {
        let (failed, request) = state.withLock { state -> (FailedWork?, ATTOpcode?) in
            guard let pending = state.pending, pending.id == id else { return (nil, nil) }
            return (state.shut(.bearerClosed), pending.request)
        }
        guard let failed, let request else { return }
        logger.error("GATT client: no answer to \(request) within \(configuration.transactionTimeout); the ATT bearer is unusable",
                     metadata: ["link": "\(link.id)"])
        failed.resumeAll(with: .bearerClosed, pendingError: .timeout)
        emit(.transactionTimedOut(request))
    }

    /// Sends a PDU that is not a request (a confirmation, a command) and must not be lost to a
    /// momentarily full queue.
    func sendReliably(_ bytes: [UInt8]) {
        guard output.send(link, bytes) == .full else { return }
        Task { [self] in
            while link.isOpen {
                await output.waitForRoom(link)
                if output.send(link, bytes) != .full { return }
            }
        }
    }
}
