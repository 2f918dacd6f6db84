import BLECore
import Logging

/// The host side of HCI: owns the transport, brings the controller up, runs command flow control
/// (Num_HCI_Command_Packets, a timeout on every command), recovers from controller faults by reset
/// and re-initialisation, and moves ACL data in both directions.
///
/// Calling context: an actor. Inbound packets are fed through one ordered stream, so events are
/// processed in the order the controller sent them. ACL output goes through `acl`, which is lock
/// based and callable synchronously from any thread.
public actor HCIHost {
    public struct Configuration: Sendable {
        public var commandTimeout: Duration = .seconds(2)
        /// Reset can take a while on UART controllers that reload firmware.
        public var resetTimeout: Duration = .seconds(5)
        public var maxRecoveryAttempts = 3
        /// Written with LE Write Suggested Default Data Length when the controller supports it.
        public var suggestedDataLength: LEDataLength = .maximum
        public var maxQueuedPDUsPerConnection = 256
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
        let continuation: CheckedContinuation<[UInt8], any Error>
    }

    public nonisolated let transport: any HCITransport
    public nonisolated let acl: ACLFlowController
    public nonisolated let events: AsyncStream<HCIHostEvent>
    public nonisolated let configuration: Configuration

    private let eventSink: AsyncStream<HCIHostEvent>.Continuation
    private let logger: Logger
    private var phase = Phase.idle
    private var commandCredits = 1
    private var nextCommandID = 0
    private var waitingToSend: [PendingCommand] = []
    private var awaitingAnswer: [PendingCommand] = []
    private var timeoutTasks: [Int: Task<Void, Never>] = [:]
    private var reassemblers: [UInt16: ACLReassembler] = [:]
    private var receiveTask: Task<Void, Never>? = nil
    public private(set) var controllerInfo: ControllerInfo? = nil

    public init(transport: any HCITransport, configuration: Configuration = .init(), logger: Logger = Logger(label: "blesensor.hci")) {
        self.transport = transport
        self.configuration = configuration
        self.logger = logger
        (events, eventSink) = AsyncStream.makeStream(of: HCIHostEvent.self)
        acl = ACLFlowController(maxQueuedPDUsPerConnection: configuration.maxQueuedPDUsPerConnection) { [logger] packet in
            do { try transport.send(packet) } catch {
                // The transport reports its own closure through the inbound path; nothing to retry here.
                logger.warning("ACL write failed: \(error)")
            }
        }
    }

    // MARK: Life cycle

    /// Opens the transport and initialises the controller.
    public func start() async throws(HCIHostError) -> ControllerInfo {
        guard phase == .idle else { throw .notReady(.reset) }
        let (inbound, inboundSink) = AsyncStream.makeStream(of: HCITransportEvent.self)
        do {
            try await transport.open { event in inboundSink.yield(event) }
        } catch {
            phase = .closed
            throw .transport(error)
        }
        receiveTask = Task { [weak self] in
            for await event in inbound {
                guard let self else { return }
                await self.process(event)
            }
        }
        phase = .initializing
        do {
            let info = try await initializeController()
            phase = .ready
            return info
        } catch {
            phase = .failed
            throw error
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

    private func execute<Command: HCICommand>(_ command: Command, timeout: Duration? = nil) async throws(HCIHostError) -> Command.ReturnParameters {
        let opcode = Command.opcode
        let answer = try await submit(command.packet, opcode: opcode, timeout: timeout ?? configuration.commandTimeout)
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

    private func submit(_ packet: HCIPacket, opcode: HCIOpcode, timeout: Duration) async throws(HCIHostError) -> [UInt8] {
        nextCommandID += 1
        let id = nextCommandID
        do {
            return try await withCheckedThrowingContinuation { continuation in
                waitingToSend.append(PendingCommand(id: id, opcode: opcode, packet: packet, timeout: timeout, continuation: continuation))
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
            do {
                try transport.send(command.packet)
            } catch {
                command.continuation.resume(throwing: HCIHostError.transport(error))
                continue
            }
            commandCredits -= 1
            awaitingAnswer.append(command)
            let timeout = command.timeout
            timeoutTasks[command.id] = Task { [weak self] in
                guard (try? await Task.sleep(for: timeout)) != nil else { return }
                await self?.commandTimedOut(id: command.id)
            }
        }
    }

    private func complete(opcode: HCIOpcode, credits: UInt8, answer: [UInt8]) {
        commandCredits = Int(credits)
        if opcode.rawValue != 0 {
            if let index = awaitingAnswer.firstIndex(where: { $0.opcode == opcode }) {
                let command = awaitingAnswer.remove(at: index)
                timeoutTasks.removeValue(forKey: command.id)?.cancel()
                command.continuation.resume(returning: answer)
            } else {
                logger.debug("answer to \(opcode) that nothing is waiting for (late after a timeout?)")
            }
        }
        pumpCommands()
    }

    private func commandTimedOut(id: Int) {
        guard let index = awaitingAnswer.firstIndex(where: { $0.id == id }) else { return }
        let command = awaitingAnswer.remove(at: index)
        timeoutTasks.removeValue(forKey: id)
        let milliseconds = Int(command.timeout.wholeMilliseconds)
        let error = HCIHostError.commandTimeout(command.opcode, milliseconds: milliseconds)
        logger.error("\(error)")
        command.continuation.resume(throwing: error)
        // The controller's command slot is lost with the unanswered command; only a reset gets it back.
        if phase == .ready { beginRecovery(reason: error) }
    }

    private func failAll(_ error: HCIHostError) {
        let commands = waitingToSend + awaitingAnswer
        waitingToSend.removeAll()
        awaitingAnswer.removeAll()
        for task in timeoutTasks.values { task.cancel() }
        timeoutTasks.removeAll()
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

    // MARK: Bring-up and recovery

    /// Reset and the initialisation sequence (Core spec Vol 6 Part D 2.1 / Vol 4 Part E 4.2).
    private func initializeController() async throws(HCIHostError) -> ControllerInfo {
        commandCredits = 1
        _ = try await execute(HCIReset(), timeout: configuration.resetTimeout)
        let version = try await execute(HCIReadLocalVersionInformation())
        let commands: HCISupportedCommands
        do {
            commands = try await execute(HCIReadLocalSupportedCommands()).commands
        } catch .commandFailed {
            // Pre-1.2 controllers lack the command; assume the LE basics every LE controller has.
            commands = HCISupportedCommands(supporting: Array(HCISupportedCommands.positions.keys.filter { $0 != .leReadBufferSizeV2 && $0 != .setEventMaskPage2 }))
        }
        let lmpFeatures = try await execute(HCIReadLocalSupportedFeatures()).features
        guard lmpFeatures & HCIFeaturesReturn.lmpLESupported != 0 || commands.supports(.leSetAdvertisingEnable) else {
            throw .unsupportedController("it does not support Bluetooth Low Energy")
        }
        _ = try await execute(HCISetEventMask.leHostDefault)
        if commands.supports(.setEventMaskPage2) {
            _ = try await execute(HCISetEventMaskPage2(mask: HCISetEventMaskPage2.encryptionChangeV2))
        }
        _ = try await execute(HCILESetEventMask.hostDefault)
        let leFeatures = try await execute(HCILEReadLocalSupportedFeatures()).features
        var bufferSize = 0, bufferCount = 0
        if commands.supports(.leReadBufferSizeV2) {
            let buffers = try await execute(HCILEReadBufferSizeV2())
            (bufferSize, bufferCount) = (Int(buffers.aclDataPacketLength), Int(buffers.totalACLDataPackets))
        } else {
            let buffers = try await execute(HCILEReadBufferSize())
            (bufferSize, bufferCount) = (Int(buffers.aclDataPacketLength), Int(buffers.totalACLDataPackets))
        }
        if bufferSize == 0 || bufferCount == 0 {
            // Zero means LE shares the BR/EDR buffers (Vol 4 Part E 7.8.2).
            let shared = try await execute(HCIReadBufferSize())
            (bufferSize, bufferCount) = (Int(shared.aclDataPacketLength), Int(shared.totalACLDataPackets))
        }
        guard bufferSize > 0, bufferCount > 0 else {
            throw .unsupportedController("it reports no ACL buffers")
        }
        let address = try await execute(HCIReadBDADDR()).address
        var suggested: LEDataLength? = nil
        if leFeatures & HCILEReadLocalSupportedFeatures.dataPacketLengthExtension != 0 {
            if commands.supports(.leWriteSuggestedDefaultDataLength) {
                _ = try await execute(HCILEWriteSuggestedDefaultDataLength(length: configuration.suggestedDataLength))
            }
            if commands.supports(.leReadSuggestedDefaultDataLength) {
                suggested = try await execute(HCILEReadSuggestedDefaultDataLength()).length
            }
        }
        acl.configure(bufferSize: bufferSize, bufferCount: bufferCount)
        reassemblers.removeAll()
        let info = ControllerInfo(version: version, supportedCommands: commands, lmpFeatures: lmpFeatures, leFeatures: leFeatures,
                                  publicAddress: address, aclBufferSize: bufferSize, aclBufferCount: bufferCount,
                                  suggestedDataLength: suggested)
        controllerInfo = info
        logger.info("controller ready: HCI version \(version.hciVersion), manufacturer 0x\(String(version.manufacturer, radix: 16)), address \(address), ACL \(bufferCount) x \(bufferSize) bytes")
        return info
    }

    private func beginRecovery(reason: HCIHostError) {
        guard phase == .ready || phase == .initializing else { return }
        phase = .resetting
        logger.warning("resetting the controller: \(reason)")
        failAll(.abortedByReset(.reset, reason: reason.description))
        acl.configure(bufferSize: 0, bufferCount: 0)
        reassemblers.removeAll()
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
            }
        }
        guard phase == .resetting else { return }
        phase = .failed
        eventSink.yield(.controllerFailed(lastError))
    }

    // MARK: Inbound

    private func process(_ event: HCITransportEvent) {
        switch event {
        case let .packet(packet):
            switch packet.type {
            case .event: processEvent(packet)
            case .acl: processACL(packet)
            case .command, .sco, .iso:
                logger.debug("ignoring inbound \(packet.type) packet of \(packet.body.count) bytes")
            }
        case let .closed(error):
            let wasClosing = phase == .closed
            phase = .closed
            failAll(error.map { .transport($0) } ?? .shutDown)
            if !wasClosing, let error { logger.error("\(error)") }
            eventSink.yield(.transportClosed(error))
            eventSink.finish()
        }
    }

    private func processEvent(_ packet: HCIPacket) {
        let event: HCIEvent
        do {
            event = try HCIEvent(body: packet.body)
        } catch {
            logger.warning("dropping malformed event: \(error) [\(packet.body.hexString)]")
            return
        }
        switch event {
        case let .commandComplete(complete):
            self.complete(opcode: complete.opcode, credits: complete.numHCICommandPackets, answer: complete.returnParameters)
        case let .commandStatus(status):
            complete(opcode: status.opcode, credits: status.numHCICommandPackets, answer: [status.status.rawValue])
        case let .numberOfCompletedPackets(completed):
            acl.completePackets(completed.entries)
        case let .hardwareError(code):
            logger.error("controller hardware error 0x\(String(code, radix: 16))")
            beginRecovery(reason: .hardwareError(code: code))
        case let .dataBufferOverflow(linkType):
            logger.error("controller reports a data buffer overflow (link type \(linkType)): host and controller disagree on credits")
        case let .le(.connectionComplete(connection)) where connection.status.isSuccess:
            acl.addConnection(connection.handle)
            reassemblers[connection.handle] = ACLReassembler()
            eventSink.yield(.controllerEvent(event))
        case let .disconnectionComplete(disconnection) where disconnection.status.isSuccess:
            acl.removeConnection(disconnection.handle)
            reassemblers.removeValue(forKey: disconnection.handle)
            eventSink.yield(.controllerEvent(event))
        case let .unknown(code, _):
            logger.debug("ignoring unknown event 0x\(String(code, radix: 16))")
        case let .le(.unknown(subevent, _)):
            logger.debug("ignoring unknown LE subevent 0x\(String(subevent, radix: 16))")
        default:
            eventSink.yield(.controllerEvent(event))
        }
    }

    private func processACL(_ packet: HCIPacket) {
        let fragment: HCIACLPacket
        do {
            fragment = try HCIACLPacket(body: packet.body)
        } catch {
            logger.warning("dropping malformed ACL packet: \(error)")
            return
        }
        guard var reassembler = reassemblers[fragment.handle] else {
            logger.warning("dropping ACL data for unknown connection 0x\(String(fragment.handle, radix: 16))")
            return
        }
        let outcome = reassembler.append(fragment.data, boundary: fragment.boundary)
        reassemblers[fragment.handle] = reassembler
        switch outcome {
        case let .complete(pdu): eventSink.yield(.aclData(handle: fragment.handle, pdu: pdu))
        case .incomplete: break
        case let .dropped(reason): logger.warning("connection 0x\(String(fragment.handle, radix: 16)): dropped malformed L2CAP fragments: \(reason)")
        }
    }
}
