import BLECore
import HCI

/// One connection attempt: LE Create Connection, then the LE Connection Complete that ends it
/// (a link, a failure, or our own cancel answered with status 0x02).
struct ConnectionAttempt {
    let id: Int
    let peer: DeviceAddress
    /// The controller accepted LE Create Connection.
    var initiating = false
    /// Why we gave up (timeout, task cancelled); the outcome is this error unless a link came first.
    var stopping: GAPError? = nil
    var cancelSent = false
    var timer: TimerHandle? = nil
    var outcome: Result<Link, GAPError>? = nil
    var continuation: CheckedContinuation<Result<Link, GAPError>, Never>? = nil
}

extension GAPCentral {
    /// Connects to an advertising peer and returns the new link (role central) once LE Connection
    /// Complete arrives; `.connected` is reported too. On timeout or when the calling task is
    /// cancelled, LE Create Connection Cancel is sent and `.connectionTimeout` /
    /// `.connectionCancelled` thrown; a link that completes at that very moment is disconnected,
    /// never leaked. Only one attempt at a time: a second call meanwhile throws
    /// `.connectionInProgress`. When the controller refuses to initiate while scanning (Command
    /// Disallowed), scanning pauses for the attempt and resumes afterwards.
    public func connect(to peer: DeviceAddress, parameters: LEConnectionParameters = .init(),
                        timeout: Duration) async throws(GAPError) -> Link {
        guard started else { throw .notStarted }
        if let attempt { throw .connectionInProgress(attempt.peer) }
        nextAttemptID += 1
        let id = nextAttemptID
        attempt = ConnectionAttempt(id: id, peer: peer)
        let result = await withTaskCancellationHandler {
            await self.runAttempt(id, peer: peer, parameters: parameters, timeout: timeout)
        } onCancel: {
            Task { await self.stopAttempt(id, because: .connectionCancelled(peer)) }
        }
        return try result.get()
    }

    private func runAttempt(_ id: Int, peer: DeviceAddress, parameters: LEConnectionParameters,
                            timeout: Duration) async -> Result<Link, GAPError> {
        do {
            try await inCommandSequence { () async throws(GAPError) in try await self.initiate(id, peer: peer, parameters: parameters) }
        } catch {
            complete(id, .failure(attempt?.stopping ?? error))
        }
        if let current = attempt, current.id == id, current.outcome == nil {
            if let reason = current.stopping {
                if current.initiating { await cancelInitiating(id, reason: reason) } else { complete(id, .failure(reason)) }
            } else {
                let milliseconds = timeout.wholeMilliseconds
                attempt?.timer = clock.schedule(after: timeout) { [weak self] in
                    Task { await self?.stopAttempt(id, because: .connectionTimeout(peer, milliseconds: milliseconds)) }
                }
            }
        }
        let result: Result<Link, GAPError> = await withCheckedContinuation { continuation in
            if let outcome = attempt?.outcome {
                continuation.resume(returning: outcome)
            } else {
                attempt?.continuation = continuation
            }
        }
        if scanPaused {
            scanPaused = false
            await resumeScanning()
        }
        if attempt?.id == id { attempt = nil }
        return result
    }

    private func initiate(_ id: Int, peer: DeviceAddress, parameters: LEConnectionParameters) async throws(GAPError) {
        guard let current = attempt, current.id == id, current.stopping == nil, current.outcome == nil else { return }
        let command = HCILECreateConnection(peer: peer, ownAddressType: configuration.ownAddressType, parameters: parameters)
        do {
            _ = try await host.send(command)
        } catch .commandFailed(_, let status) where status == .commandDisallowed && controllerScanning {
            logger.info("the controller cannot initiate while scanning: scanning pauses for the connection attempt")
            scanPaused = true
            try await applyScanState()
            do {
                _ = try await host.send(command)
            } catch {
                throw .controller(error)
            }
        } catch {
            throw .controller(error)
        }
        attempt?.initiating = true
    }

    /// Gives up on the attempt (timer or task cancellation): cancels initiation if it is under way.
    func stopAttempt(_ id: Int, because reason: GAPError) async {
        guard let current = attempt, current.id == id, current.stopping == nil, current.outcome == nil else { return }
        attempt?.stopping = reason
        attempt?.timer?.cancel()
        logger.info("connection attempt to \(current.peer) stopped: \(reason)")
        // Before the controller accepted Create Connection, `runAttempt` cancels once it has.
        guard current.initiating else { return }
        await cancelInitiating(id, reason: reason)
    }

    private func cancelInitiating(_ id: Int, reason: GAPError) async {
        guard let current = attempt, current.id == id, !current.cancelSent, current.outcome == nil else { return }
        attempt?.cancelSent = true
        do {
            // Answered by LE Connection Complete with status 0x02, which completes the attempt.
            _ = try await host.send(HCILECreateConnectionCancel())
        } catch .commandFailed(_, let status) where status == .commandDisallowed {
            // Nothing left to cancel: the connection completed first and its link is on the way.
        } catch {
            complete(id, .failure(reason))
        }
    }

    /// A central link opened: it is the attempt's (the controller has one initiator), or one we
    /// did not ask for, which is reported all the same.
    func linkOpened(_ link: Link) {
        guard let current = attempt, current.outcome == nil else {
            announce(link)
            return
        }
        if let reason = current.stopping {
            // Completed as we gave up: the caller was told it failed, so the link must not stay.
            logger.notice("\(link.id) completed after the attempt was given up (\(reason)); disconnecting it")
            Task { [host] in _ = try? await host.disconnect(link, reason: .remoteUserTerminated) }
            complete(current.id, .failure(reason))
            return
        }
        announce(link)
        complete(current.id, .success(link))
    }

    /// LE Connection Complete with an error status, role central.
    func connectionFailed(status: HCIStatus) {
        guard let current = attempt, current.outcome == nil else {
            logger.debug("failed connection complete (\(status)) with no attempt under way; ignored")
            return
        }
        complete(current.id, .failure(current.stopping ?? .connectionFailed(current.peer, status)))
    }

    /// The controller was reset or is gone: the attempt fails with it.
    func abandonAttempt(because reason: GAPError) {
        guard let current = attempt else { return }
        complete(current.id, .failure(reason))
    }

    private func complete(_ id: Int, _ result: Result<Link, GAPError>) {
        guard let current = attempt, current.id == id, current.outcome == nil else { return }
        current.timer?.cancel()
        attempt?.outcome = result
        if let continuation = current.continuation {
            attempt?.continuation = nil
            continuation.resume(returning: result)
        }
    }
}
