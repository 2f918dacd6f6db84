import ATT
import BLECore
import L2CAP
import Logging
import Synchronization
import VirtualController

/// A minimal GATT client on a `VirtualLink`, for the demo central: ATT over the fixed channel
/// 0x0004, one outstanding request at a time, each bounded by the ATT transaction timeout on an
/// injectable monotonic clock. Notifications and indications (confirmed at once) arrive on `updates`;
/// requests from the server are answered with Request Not Supported (we have no server role).
///
/// Calling context: procedures are called one after another from one task; a concurrent second
/// request fails with `requestInProgress` instead of being interleaved.
final class DemoGATTClient: Sendable {
    /// Core spec Vol 3 Part F 3.3.3.
    static let transactionTimeout: Duration = .seconds(30)

    private struct Pending {
        let id: UInt64
        let request: ATTOpcode
        let continuation: CheckedContinuation<Result<ATTPDU, DemoGATTError>, Never>
        var timer: TimerHandle?
    }

    private struct State {
        var mtu = ATTConstants.defaultLEMTU
        /// A request was claimed; its continuation may not be stored yet.
        var busy = false
        var pending: Pending?
        var nextID: UInt64 = 0
        /// Set when the bearer became unusable; every later request fails with it.
        var closed: DemoGATTError?
    }

    let link: VirtualLink
    /// Values the server pushed, in arrival order; finishes when the link drops or `close()` is called.
    let updates: AsyncStream<GATTValueUpdate>
    private let updateSink: AsyncStream<GATTValueUpdate>.Continuation
    private let clock: any HostClock
    private let timeout: Duration
    private let logger: Logger
    private let state = Mutex(State())
    private let reader = Mutex<Task<Void, Never>?>(nil)

    init(link: VirtualLink, clock: any HostClock = SystemClock.shared, transactionTimeout: Duration = DemoGATTClient.transactionTimeout,
         logger: Logger = Logger(label: "blesensor.demo-gatt-client")) {
        self.link = link
        self.clock = clock
        self.timeout = transactionTimeout
        self.logger = logger
        // Bounded: a central that stops reading keeps the newest values, not an ever-growing backlog.
        (updates, updateSink) = AsyncStream.makeStream(of: GATTValueUpdate.self, bufferingPolicy: .bufferingNewest(256))
        let task = Task { [weak self, link] in
            for await pdu in link.received { self?.receive(pdu) }
            self?.shut(.disconnected)
        }
        reader.withLock { $0 = task }
    }

    deinit {
        reader.withLock { $0?.cancel() }
        updateSink.finish()
    }

    /// The ATT_MTU in use: 23 until `exchangeMTU` completes.
    var mtu: Int { state.withLock { $0.mtu } }

    func setMTU(_ mtu: Int) { state.withLock { $0.mtu = mtu } }

    /// Stops reading the link and fails an outstanding request; the link itself stays as it is.
    func close() {
        reader.withLock { $0.take() }?.cancel()
        shut(.disconnected)
    }

    // MARK: Transactions

    /// Sends `request` and returns its successful response (the request's response opcode), or throws
    /// the Error Response, a timeout, a drop or a malformed answer.
    func transact(_ request: ATTPDU) async throws(DemoGATTError) -> ATTPDU {
        let opcode = request.opcode
        let claim: Result<UInt64, DemoGATTError> = state.withLock { state in
            if let closed = state.closed { return .failure(closed) }
            guard !state.busy else { return .failure(.requestInProgress(opcode)) }
            state.busy = true
            state.nextID += 1
            return .success(state.nextID)
        }
        let id = try claim.get()
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<ATTPDU, DemoGATTError>, Never>) in
                let closed = state.withLock { state -> DemoGATTError? in
                    if let closed = state.closed { return closed }
                    state.pending = Pending(id: id, request: opcode, continuation: continuation)
                    return nil
                }
                if let closed {
                    state.withLock { $0.busy = false }
                    continuation.resume(returning: .failure(closed))
                    return
                }
                // Cancelled before the pending request was visible to the cancellation handler.
                if Task.isCancelled {
                    complete(id, with: .failure(.cancelled))
                    return
                }
                let timeout = self.timeout
                let timer = clock.schedule(after: timeout) { [weak self] in
                    // No further ATT PDU may be sent on a bearer whose transaction timed out (3.3.3).
                    self?.state.withLock { $0.closed = $0.closed ?? .timedOut(opcode, after: timeout) }
                    self?.complete(id, with: .failure(.timedOut(opcode, after: timeout)))
                }
                let armed = state.withLock { state -> Bool in
                    guard state.pending?.id == id else { return false }
                    state.pending?.timer = timer
                    return true
                }
                if !armed { timer.cancel() }
                do throws(DemoGATTError) {
                    try send(request)
                } catch {
                    complete(id, with: .failure(error))
                }
            }
        } onCancel: {
            complete(id, with: .failure(.cancelled))
        }
        return try result.get()
    }

    /// Resumes the request `id` if it is still outstanding (a late answer after a timeout is dropped).
    private func complete(_ id: UInt64, with result: Result<ATTPDU, DemoGATTError>) {
        let pending = state.withLock { state -> Pending? in
            guard state.pending?.id == id else { return nil }
            state.busy = false
            return state.pending.take()
        }
        pending?.timer?.cancel()
        pending?.continuation.resume(returning: result)
    }

    private func send(_ pdu: ATTPDU) throws(DemoGATTError) {
        do {
            try link.send(l2capPDU: L2CAPBasicFrame.pdu(channelID: L2CAPChannelID.attribute, payload: pdu.encode()))
        } catch {
            throw .sendFailed(error)
        }
    }

    /// The bearer is gone: fail the outstanding request and end `updates`.
    private func shut(_ reason: DemoGATTError) {
        let pending = state.withLock { state -> Pending? in
            state.closed = state.closed ?? reason
            state.busy = false
            return state.pending.take()
        }
        pending?.timer?.cancel()
        pending?.continuation.resume(returning: .failure(reason))
        updateSink.finish()
    }

    // MARK: Inbound

    private func receive(_ pdu: [UInt8]) {
        let frame: L2CAPBasicFrame
        do {
            frame = try L2CAPBasicFrame(pdu: pdu)
        } catch {
            logger.debug("demo GATT client: dropping frame: \(error)")
            return
        }
        // Signaling and SMP are not the client's business; the virtual link handles the link layer.
        guard frame.channelID == L2CAPChannelID.attribute else { return }
        let att: ATTPDU
        do {
            att = try ATTPDU.decode(frame.payload)
        } catch {
            receiveMalformed(error)
            return
        }
        switch att {
        case let .handleValueNotification(handle, value):
            updateSink.yield(GATTValueUpdate(valueHandle: handle, value: value, kind: .notification))
        case let .multipleHandleValueNotification(tuples):
            for tuple in tuples { updateSink.yield(GATTValueUpdate(valueHandle: tuple.handle, value: tuple.value, kind: .notification)) }
        case let .handleValueIndication(handle, value):
            // Confirm first: the server sends nothing else on this bearer's indication queue until then.
            try? send(.handleValueConfirmation)
            updateSink.yield(GATTValueUpdate(valueHandle: handle, value: value, kind: .indication))
        default:
            if att.isRequest {
                try? send(.errorResponse(for: att.opcode, handle: 0x0000, error: .requestNotSupported))
            } else if !att.isCommand, att.opcode != .handleValueConfirmation {
                deliver(att)
            }
        }
    }

    /// A response goes to the outstanding request it answers; anything else is dropped.
    private func deliver(_ response: ATTPDU) {
        let id = state.withLock { state -> UInt64? in
            guard let pending = state.pending else { return nil }
            if case let .errorResponse(request, _, _) = response { return request == pending.request ? pending.id : nil }
            return response.opcode == pending.request.responseOpcode ? pending.id : nil
        }
        guard let id else {
            logger.debug("demo GATT client: ignoring unrelated \(response.opcode)")
            return
        }
        if case let .errorResponse(request, handle, error) = response {
            complete(id, with: .failure(.attribute(error, request: request, handle: handle)))
        } else {
            complete(id, with: .success(response))
        }
    }

    private func receiveMalformed(_ error: ATTDecodingError) {
        guard let opcode = error.opcode else {
            logger.debug("demo GATT client: \(error)")
            return
        }
        if ATTPDU.answersAsRequest(opcode) {
            try? send(.errorResponse(for: opcode, handle: 0x0000, error: .requestNotSupported))
            return
        }
        let id = state.withLock { state -> UInt64? in
            guard let pending = state.pending,
                  opcode == pending.request.responseOpcode || opcode == .errorResponse else { return nil }
            return pending.id
        }
        if let id {
            complete(id, with: .failure(.malformedResponse(error)))
        } else {
            logger.debug("demo GATT client: dropping \(error)")
        }
    }
}
