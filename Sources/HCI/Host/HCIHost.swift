import BLECore
import Logging
import Synchronization

/// The host side of HCI: owns the transport, brings the controller up, runs command flow control
/// (Num_HCI_Command_Packets, a timeout on every command), recovers from controller faults by reset
/// and re-initialisation, and keeps one `Link` per connection.
///
/// Calling context: commands go through this actor. Everything the controller sends is first seen
/// by `HCIInboundRouter` on the transport's reader context, in controller order: ACL data, Number
/// Of Completed Packets and link bookkeeping (open, close, encryption, parameters) are handled
/// there synchronously, so a PDU that follows Encryption Change on the wire is checked against the
/// new security; command answers and faults come here. ACL output goes through `acl`, which is
/// lock based and callable from any thread.
public actor HCIHost {
    public struct Configuration: Sendable {
        public var commandTimeout: Duration = .seconds(2)
        /// Reset can take a while on UART controllers that reload firmware.
        public var resetTimeout: Duration = .seconds(5)
        public var maxRecoveryAttempts = 3
        /// Written with LE Write Suggested Default Data Length when the controller supports it.
        public var suggestedDataLength: LEDataLength = .maximum
        public var maxQueuedPDUsPerLink = 256
        /// A link whose ACL packets stay uncompleted this long is disconnected (Linux's ACL TX timeout).
        public var aclTransmitTimeout: Duration = .seconds(10)
        /// Every timeout of the host runs on this clock (a `ManualClock` in tests).
        public var clock: any HostClock = SystemClock.shared
        public init() {}
    }

    enum Phase: Equatable {
        case idle, initializing, ready, resetting, failed, closed
    }

    struct PendingCommand {
        let id: Int
        let opcode: HCIOpcode
        let packet: HCIPacket
        let timeout: Duration
        /// The link the command is about; it is not sent once that link closed.
        let link: Link?
        let continuation: CheckedContinuation<[UInt8], any Error>
    }

    public nonisolated let transport: any HCITransport
    public nonisolated let acl: ACLFlowController
    public nonisolated let links: LinkTable
    /// One shared stream, made on first use (events before that are not kept); consumers that must
    /// not miss anything make their own with `makeEventStream()` before `start()`. Never made unless
    /// asked for: a stream nobody reads would keep every event, advertising reports included.
    public nonisolated var events: AsyncStream<HCIHostEvent> {
        sharedEvents.withLock { stream in
            if let stream { return stream }
            let made = eventSink.makeStream()
            stream = made
            return made
        }
    }
    private nonisolated let sharedEvents = Mutex<AsyncStream<HCIHostEvent>?>(nil)
    public nonisolated let configuration: Configuration

    nonisolated let eventSink: HostEventBroadcaster
    private nonisolated let router: HCIInboundRouter
    let logger: Logger
    private var phase = Phase.idle
    var commandCredits = 1
    /// Command timeouts since the last answer; the second in a row resets the controller.
    private var consecutiveTimeouts = 0
    private var nextCommandID = 0
    private var waitingToSend: [PendingCommand] = []
    private var awaitingAnswer: [PendingCommand] = []
    private var timeouts: [Int: TimerHandle] = [:]
    private var receiveTask: Task<Void, Never>? = nil
    public internal(set) var controllerInfo: ControllerInfo? = nil

    public init(transport: any HCITransport, configuration: Configuration = .init(), logger: Logger = Logger(label: "blesensor.hci")) {
        self.transport = transport
        self.configuration = configuration
        self.logger = logger
        eventSink = HostEventBroadcaster()
        acl = ACLFlowController(maxQueuedPDUsPerLink: configuration.maxQueuedPDUsPerLink,
                                transmitTimeout: configuration.aclTransmitTimeout, clock: configuration.clock,
                                send: { [logger] packet in
                                    do {
                                        try transport.send(packet)
                                        return true
                                    } catch {
                                        // The credit goes back; closure of the link is reported through the inbound path.
                                        logger.warning("ACL write refused: \(error)")
                                        return false
                                    }
                                },
                                discardQueued: { handle in transport.discardQueuedACL(handle: handle) })
        links = LinkTable()
        router = HCIInboundRouter(links: links, acl: acl, events: eventSink, logger: logger)
        acl.setTransmitTimeoutHandler { [weak self] link in
            Task { await self?.transmitTimedOut(link) }
        }
        // Weak: the flow controller already holds the transport.
        transport.setCreditSource { [weak acl] in acl?.credits ?? ACLCredits(inFlight: 0, capacity: 0) }
    }

    /// A stream of every host event from the moment it is made, in controller order, for one more
    /// consumer (the central role beside the peripheral role). It ends when the transport closes.
    /// Make it before `start()` (or before the state it depends on) so that nothing is missed.
    public nonisolated func makeEventStream() -> AsyncStream<HCIHostEvent> {
        eventSink.makeStream()
    }

    // MARK: Life cycle

    /// Opens the transport and initialises the controller.
    public func start() async throws(HCIHostError) -> ControllerInfo {
        guard phase == .idle else { throw .notReady(.reset) }
        let (inbound, inboundSink) = AsyncStream.makeStream(of: HCIInboundRouter.HostInput.self)
        router.attach(inboundSink)
        let router = router
        do {
            try await transport.open { event in router.process(event) }
        } catch {
            phase = .closed
            throw .transport(error)
        }
        receiveTask = Task { [weak self] in
            for await input in inbound {
                guard let self else { return }
                await self.process(input)
            }
        }
        phase = .initializing
        var attempt = 1
        while true {
            do {
                let info = try await initializeController()
                phase = .ready
                return info
            } catch {
                // A lost reply is worth a reset and another try (a Pi Zero 2 W's UART loses one on
                // about one boot in ten); any other failure is the controller's answer.
                guard case .commandTimeout = error, phase == .initializing, attempt < max(1, configuration.maxRecoveryAttempts) else {
                    if phase == .initializing { phase = .failed }
                    throw error
                }
                attempt += 1
                logger.warning("\(error) during bring-up; resetting the controller (attempt \(attempt) of \(configuration.maxRecoveryAttempts))")
                transport.discardQueuedPackets()
            }
        }
    }

    /// Closes the transport and fails whatever is pending. Idempotent.
    public func shutdown() {
        guard phase != .closed else { return }
        phase = .closed
        failAll(.shutDown)
        transport.close()
    }

    // MARK: Commands

    /// Sends a command and returns its return parameters (Command Complete) or, for commands that
    /// complete with Command Status, the status once the controller accepted it.
    public func send<Command: HCICommand>(_ command: Command, timeout: Duration? = nil) async throws(HCIHostError) -> Command.ReturnParameters {
        guard phase == .ready else { throw .notReady(Command.opcode) }
        return try await execute(command, timeout: timeout)
    }

    /// Sends a command about `link` (it names the link's handle). It fails with `.linkClosed`
    /// instead of going out if the link closes while it waits for a command credit, so a command
    /// meant for a closed link never reaches a new link that reuses the handle.
    public func send<Command: HCICommand>(_ command: Command, for link: Link, timeout: Duration? = nil) async throws(HCIHostError) -> Command.ReturnParameters {
        guard phase == .ready else { throw .notReady(Command.opcode) }
        guard link.isOpen else { throw .linkClosed(Command.opcode, link.id) }
        return try await execute(command, link: link, timeout: timeout)
    }

    /// Commands waiting for a command credit, and commands sent and not answered (for tests).
    var commandQueueDepth: (waiting: Int, awaitingAnswer: Int) { (waitingToSend.count, awaitingAnswer.count) }

    /// Disconnects `link` (no-op once it closed).
    public func disconnect(_ link: Link, reason: HCIStatus = .remoteUserTerminated) async throws(HCIHostError) {
        _ = try await send(HCIDisconnect(handle: link.handle, reason: reason), for: link)
    }

    func execute<Command: HCICommand>(_ command: Command, link: Link? = nil, timeout: Duration? = nil) async throws(HCIHostError) -> Command.ReturnParameters {
        let opcode = Command.opcode
        let answer = try await submit(command.packet, opcode: opcode, link: link, timeout: timeout ?? configuration.commandTimeout)
        guard let statusByte = answer.first else {
            throw .malformedResponse(opcode, .truncated("return parameters", .truncated(needed: 1, available: 0, offset: 0)))
        }
        let status = HCIStatus(rawValue: statusByte)
        guard status.isSuccess else { throw .commandFailed(opcode, status) }
        do {
            return try Command.ReturnParameters(decoding: answer)
        } catch {
            throw .malformedResponse(opcode, error)
        }
    }

    private func submit(_ packet: HCIPacket, opcode: HCIOpcode, link: Link?, timeout: Duration) async throws(HCIHostError) -> [UInt8] {
        nextCommandID += 1
        let id = nextCommandID
        do {
            return try await withCheckedThrowingContinuation { continuation in
                waitingToSend.append(PendingCommand(id: id, opcode: opcode, packet: packet, timeout: timeout, link: link, continuation: continuation))
                pumpCommands()
            }
        } catch let error as HCIHostError {
            throw error
        } catch {
            throw .transport(.systemCallFailed(operation: "command", errno: 0, message: "\(error)"))
        }
    }

    /// Sends queued commands while the controller has room for them.
    private func pumpCommands() {
        while commandCredits > 0, !waitingToSend.isEmpty {
            let command = waitingToSend.removeFirst()
            if let link = command.link, !link.isOpen {
                command.continuation.resume(throwing: HCIHostError.linkClosed(command.opcode, link.id))
                continue
            }
            do {
                try transport.send(command.packet)
            } catch {
                command.continuation.resume(throwing: HCIHostError.transport(error))
                continue
            }
            commandCredits -= 1
            awaitingAnswer.append(command)
            let commandID = command.id
            timeouts[commandID] = configuration.clock.schedule(after: command.timeout) { [weak self] in
                Task { await self?.commandTimedOut(id: commandID) }
            }
        }
    }

    private func complete(opcode: HCIOpcode, credits: UInt8, answer: [UInt8]) {
        if opcode.rawValue == 0 {
            // No command: the controller announcing how many it takes (after power-on, for one).
            commandCredits = Int(credits)
        } else if let index = awaitingAnswer.firstIndex(where: { $0.opcode == opcode }) {
            commandCredits = Int(credits)
            consecutiveTimeouts = 0
            let command = awaitingAnswer.remove(at: index)
            timeouts.removeValue(forKey: command.id)?.cancel()
            command.continuation.resume(returning: answer)
        } else {
            // Late after a timeout, or for a command someone else sent before we took the
            // controller (Raspberry Pi OS's bthelper). Its credit count predates our commands in
            // flight, so it must not open room for more of them.
            logger.notice("answer to \(opcode) that no command of ours is waiting for (late after a timeout, or sent by another program)")
        }
        pumpCommands()
    }

    private func commandTimedOut(id: Int) {
        guard let index = awaitingAnswer.firstIndex(where: { $0.id == id }) else { return }
        let command = awaitingAnswer.remove(at: index)
        timeouts.removeValue(forKey: id)
        let milliseconds = Int(command.timeout.wholeMilliseconds)
        let error = HCIHostError.commandTimeout(command.opcode, milliseconds: milliseconds)
        command.continuation.resume(throwing: error)
        guard phase == .ready else {
            // Bring-up: its caller resets and tries again.
            logger.error("\(error)")
            return
        }
        consecutiveTimeouts += 1
        if consecutiveTimeouts >= 2 {
            logger.error("\(error), the second in a row")
            beginRecovery(reason: error)
            return
        }
        // One lost reply is not a lost controller (a UART that dropped bytes): take the command's
        // slot back and carry on, as Linux's hci_cmd_timeout does. A second one in a row resets.
        logger.warning("\(error); taking its command slot back (another timeout in a row resets the controller)")
        commandCredits = max(commandCredits, 1)
        pumpCommands()
    }

    private func failAll(_ error: HCIHostError) {
        let commands = waitingToSend + awaitingAnswer
        waitingToSend.removeAll()
        awaitingAnswer.removeAll()
        for timer in timeouts.values { timer.cancel() }
        timeouts.removeAll()
        for command in commands {
            let failure: HCIHostError
            if case let .abortedByReset(_, reason) = error {
                failure = .abortedByReset(command.opcode, reason: reason)
            } else {
                failure = error
            }
            command.continuation.resume(throwing: failure)
        }
    }

    /// A link's packets stayed uncompleted for the ACL transmit timeout: the peer or the controller
    /// lost it. Drop the link so its credits come back.
    private func transmitTimedOut(_ link: Link) async {
        guard link.isOpen else { return }
        logger.error("\(link): no ACL packet completed for \(configuration.aclTransmitTimeout) with \(acl.packetsInFlight(on: link)) in the controller; disconnecting")
        do {
            try await disconnect(link)
        } catch {
            logger.warning("\(link): disconnect after the transmit timeout failed: \(error)")
        }
    }

    // MARK: Bring-up and recovery

    private func beginRecovery(reason: HCIHostError) {
        guard phase == .ready || phase == .initializing else { return }
        phase = .resetting
        consecutiveTimeouts = 0
        logger.warning("resetting the controller: \(reason)")
        failAll(.abortedByReset(.reset, reason: reason.description))
        router.closeAllLinks(reason: .hardwareFailure)
        acl.configure(bufferSize: 0, bufferCount: 0)
        // Whatever waits in the transport belongs to the controller state being thrown away.
        transport.discardQueuedPackets()
        eventSink.yield(.controllerResetting(reason: reason))
        Task { await self.recover(reason: reason) }
    }

    private func recover(reason: HCIHostError) async {
        var lastError = reason
        for attempt in 1...max(1, configuration.maxRecoveryAttempts) {
            guard phase == .resetting else { return }
            do {
                let info = try await initializeController()
                guard phase == .resetting else { return }
                phase = .ready
                logger.notice("controller recovered after \(reason)")
                eventSink.yield(.controllerRecovered(info))
                return
            } catch {
                lastError = error
                logger.error("recovery attempt \(attempt) failed: \(error)")
                failAll(.abortedByReset(.reset, reason: error.description))
                transport.discardQueuedPackets()
            }
        }
        guard phase == .resetting else { return }
        phase = .failed
        // A stall that outlived every reset is what the user must hear about, not the last timeout.
        if case .transport(.stalled) = reason { lastError = reason }
        eventSink.yield(.controllerFailed(lastError))
    }

    // MARK: Inbound (from the router)

    private func process(_ input: HCIInboundRouter.HostInput) {
        switch input {
        case let .answer(opcode, credits, answer):
            complete(opcode: opcode, credits: credits, answer: answer)
        case let .hardwareError(code):
            logger.error("controller hardware error 0x\(String(code, radix: 16))")
            beginRecovery(reason: .hardwareError(code: code))
        case let .stalled(error):
            logger.error("\(error)")
            beginRecovery(reason: .transport(error))
        case let .closed(error):
            let wasClosing = phase == .closed
            phase = .closed
            failAll(error.map { .transport($0) } ?? .shutDown)
            router.closeAllLinks(reason: .localHostTerminated)
            if !wasClosing, let error { logger.error("\(error)") }
            eventSink.yield(.transportClosed(error))
            eventSink.finish()
        }
    }
}
