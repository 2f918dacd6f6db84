import BLECore
import HCI
import Logging
import Synchronization

/// The fixed channels of every LE link: routes inbound B-frames to the ATT and SMP handlers,
/// answers LE signaling itself, and sends outbound payloads through the ACL flow controller.
///
/// Signaling state (identifiers, requests awaiting a response, their timeouts) is per link: a
/// response completes only a request of its own link, and everything of a link goes when it closes.
///
/// A host has one instance (`attach` refuses a second): the link table has a single data handler.
/// The peripheral and central roles of one controller share it and install their handlers per
/// link role, so each sees only the PDUs of its own links.
///
/// Calling context: `receive` is called in order for each link (from the host's inbound context);
/// handlers run on that caller's context and must not block. Every method is thread-safe.
public final class L2CAPFixedChannels: Sendable {
    public typealias ChannelHandler = @Sendable (_ link: Link, _ payload: [UInt8]) -> Void
    /// Decides a peripheral's Connection Parameter Update Request on a link where we are the
    /// central (the parameters are already within the spec's ranges); `true` accepts, and the
    /// handler then applies them (HCI LE Connection Update). Runs on the inbound context: no blocking.
    public typealias ConnectionParameterRequestHandler = @Sendable (_ link: Link, _ parameters: LEConnectionParameters) -> Bool

    struct PendingRequest {
        let continuation: CheckedContinuation<ConnectionParameterUpdateResult, Never>
        let timer: TimerHandle?
    }

    struct Signaling {
        var nextIdentifier: UInt8 = 1
        var pending: [UInt8: PendingRequest] = [:]
    }

    /// A handler for one role's links, or (role nil) for links of a role without one of its own.
    struct HandlerKey: Hashable {
        let channel: UInt16
        let role: HCIRole?
    }

    struct State {
        var handlers: [HandlerKey: ChannelHandler] = [:]
        var signaling: [LinkID: Signaling] = [:]
        var parameterRequestHandler: ConnectionParameterRequestHandler?
    }

    private let state = Mutex(State())
    private let acl: ACLFlowController
    private let clock: any HostClock
    private let logger: Logger

    public init(acl: ACLFlowController, clock: any HostClock = SystemClock.shared, logger: Logger = Logger(label: "blesensor.l2cap")) {
        self.acl = acl
        self.clock = clock
        self.logger = logger
    }

    /// Receives the links' PDUs from `links` and forgets a link's signaling state when it closes.
    /// Returns `false` (and changes nothing) when another instance is attached to `links` already:
    /// a second one would take the data handler away from the first; share that one instead.
    /// Attaching the same instance again is harmless.
    @discardableResult
    public func attach(to links: LinkTable) -> Bool {
        switch links.claimDataHandler(by: self, { [weak self] link, pdu in self?.receive(pdu, on: link) }) {
        case .alreadyOurs:
            return true
        case .takenByAnother:
            logger.error("another L2CAP instance already serves this host's links; this one stays detached")
            return false
        case .claimed:
            break
        }
        links.addObserver { [weak self] change in
            if case let .closed(link, _) = change { self?.linkClosed(link) }
        }
        return true
    }

    /// Installs the upper layer for a fixed channel (ATT on 0x0004, SMP on 0x0006) on links of
    /// either role, unless that role has a handler of its own (`setHandler(for:role:_:)`).
    public func setHandler(for channelID: UInt16, _ handler: @escaping ChannelHandler) {
        state.withLock { $0.handlers[HandlerKey(channel: channelID, role: nil)] = handler }
    }

    /// Installs the upper layer for a fixed channel on the links where we have `role`: the
    /// peripheral and central roles of one controller each serve their own links.
    public func setHandler(for channelID: UInt16, role: HCIRole, _ handler: @escaping ChannelHandler) {
        state.withLock { $0.handlers[HandlerKey(channel: channelID, role: role)] = handler }
    }

    /// Removes a role's handler (a central role leaving a shared controller); its links fall back
    /// to the role-less handler, or to none.
    public func removeHandler(for channelID: UInt16, role: HCIRole) {
        _ = state.withLock { $0.handlers.removeValue(forKey: HandlerKey(channel: channelID, role: role)) }
    }

    private func handler(for channelID: UInt16, on link: Link) -> ChannelHandler? {
        state.withLock { state in
            state.handlers[HandlerKey(channel: channelID, role: link.role)] ?? state.handlers[HandlerKey(channel: channelID, role: nil)]
        }
    }

    /// Installs the central's decision on Connection Parameter Update Requests (normally
    /// `GAPCentral.connectionParameterUpdateRequested`). Without one, every request is rejected.
    public func setConnectionParameterRequestHandler(_ handler: @escaping ConnectionParameterRequestHandler) {
        state.withLock { $0.parameterRequestHandler = handler }
    }

    /// Whether a Connection Parameter Update Request is within Vol 3 Part A 4.20: intervals 7.5 ms
    /// … 4 s with min ≤ max, latency ≤ 499, timeout 100 ms … 32 s, and the timeout longer than
    /// (1 + latency) × max interval × 2 (Vol 6 Part B 4.5.2), all in controller units.
    public static func isValidUpdateRequest(_ parameters: LEConnectionParameters) -> Bool {
        let intervals: ClosedRange<UInt16> = 6...3200
        guard intervals.contains(parameters.intervalMin), intervals.contains(parameters.intervalMax),
              parameters.intervalMin <= parameters.intervalMax, parameters.latency <= 499,
              (10...3200).contains(parameters.supervisionTimeout) else { return false }
        // Timeout (10 ms units) > (1 + latency) × interval (1.25 ms units) × 2  ⇔  4 × timeout > (1 + latency) × interval.
        return 4 * Int(parameters.supervisionTimeout) > (1 + Int(parameters.latency)) * Int(parameters.intervalMax)
    }

    /// Sends a payload on a fixed channel of a link.
    public func send(_ payload: [UInt8], channel channelID: UInt16, on link: Link) throws(ACLSendError) {
        try acl.enqueue(L2CAPBasicFrame.pdu(channelID: channelID, payload: payload), on: link)
    }

    /// How a send fared, for upper layers that only decide between going on, waiting for room and
    /// giving up.
    public enum SendOutcome: Sendable, Equatable { case sent, full, closed }

    /// `send`, with the failure folded into an outcome; a PDU too long for the link can never go and
    /// is logged (it is a bug of the layer above).
    public func trySend(_ payload: [UInt8], channel channelID: UInt16, on link: Link) -> SendOutcome {
        do throws(ACLSendError) {
            try send(payload, channel: channelID, on: link)
            return .sent
        } catch {
            switch error {
            case .queueFull: return .full
            case .linkClosed, .notConfigured: return .closed
            case .pduTooLong:
                logger.error("\(link.id): PDU for channel 0x\(String(channelID, radix: 16)) not sent: \(error)")
                return .closed
            }
        }
    }

    /// An SMP PDU; a lost one ends in the pairing's own timeout, so it is only logged.
    public func sendSecurityManagerPDU(_ pdu: [UInt8], on link: Link) {
        if trySend(pdu, channel: L2CAPChannelID.securityManager, on: link) != .sent {
            logger.warning("\(link.id): SMP PDU not sent: the link is closed or its queue is full")
        }
    }

    /// Handles one reassembled PDU from a link.
    public func receive(_ pdu: [UInt8], on link: Link) {
        let frame: L2CAPBasicFrame
        do {
            frame = try L2CAPBasicFrame(pdu: pdu)
        } catch {
            logger.warning("\(link.id): dropping frame: \(error)")
            return
        }
        switch frame.channelID {
        case L2CAPChannelID.leSignaling:
            receiveSignaling(frame.payload, on: link)
        case L2CAPChannelID.attribute, L2CAPChannelID.securityManager:
            if let handler = handler(for: frame.channelID, on: link) {
                handler(link, frame.payload)
            } else if frame.channelID == L2CAPChannelID.securityManager {
                refusePairing(frame.payload, on: link)
            } else {
                logger.debug("\(link.id): no ATT server attached; dropping \(frame.payload.count) bytes")
            }
        default:
            // Data on a channel that does not exist is discarded (Vol 3 Part A 3: no dynamic channels are open).
            logger.debug("\(link.id): dropping frame for unknown channel 0x\(String(frame.channelID, radix: 16))")
        }
    }

    /// Asks the central for new connection parameters (a peripheral may only ask; the central decides).
    public func requestConnectionParameterUpdate(_ parameters: LEConnectionParameters, on link: Link,
                                                 timeout: Duration = .seconds(30)) async -> ConnectionParameterUpdateResult {
        guard link.isOpen else { return .connectionClosed }
        return await withCheckedContinuation { continuation in
            let identifier: UInt8? = state.withLock { state in
                var signaling = state.signaling[link.id] ?? Signaling()
                guard signaling.pending.count < 255 else { return nil }
                // Identifiers cycle 1…255 per link, skipping any still awaiting a response.
                var candidate = signaling.nextIdentifier
                while signaling.pending[candidate] != nil { candidate = candidate == 255 ? 1 : candidate + 1 }
                let identifier = candidate
                signaling.nextIdentifier = identifier == 255 ? 1 : identifier + 1
                // The timer (RTX, Vol 3 Part A 6.2.1) is armed under the lock so a fast answer finds it.
                let timer = clock.schedule(after: timeout) { [weak self] in self?.finish(identifier, on: link.id, with: .timedOut) }
                signaling.pending[identifier] = PendingRequest(continuation: continuation, timer: timer)
                state.signaling[link.id] = signaling
                return identifier
            }
            guard let identifier else {
                continuation.resume(returning: .sendFailed(.queueFull(link.id, limit: 255)))
                return
            }
            // Closed while we registered: the close already swept the table, so finish here.
            guard link.isOpen else {
                finish(identifier, on: link.id, with: .connectionClosed)
                state.withLock { state in
                    if state.signaling[link.id]?.pending.isEmpty == true { state.signaling[link.id] = nil }
                }
                return
            }
            let request = LESignalingCommand.connectionParameterUpdateRequest(identifier: identifier, parameters: parameters)
            do throws(ACLSendError) {
                try send(request.encoded, channel: L2CAPChannelID.leSignaling, on: link)
            } catch {
                finish(identifier, on: link.id, with: .sendFailed(error))
            }
        }
    }

    /// Fails the link's outstanding signaling requests and forgets its signaling state.
    public func linkClosed(_ link: Link) {
        let abandoned = state.withLock { $0.signaling.removeValue(forKey: link.id)?.pending.values.map { $0 } } ?? []
        for request in abandoned {
            request.timer?.cancel()
            request.continuation.resume(returning: .connectionClosed)
        }
    }

    private func finish(_ identifier: UInt8, on link: LinkID, with result: ConnectionParameterUpdateResult) {
        let request = state.withLock { $0.signaling[link]?.pending.removeValue(forKey: identifier) }
        request?.timer?.cancel()
        request?.continuation.resume(returning: result)
    }

    private func receiveSignaling(_ payload: [UInt8], on link: Link) {
        let command: LESignalingCommand
        do throws(LESignalingDecodingError) {
            command = try LESignalingCommand(decoding: payload)
        } catch {
            guard case let .malformed(code, identifier) = error else {
                logger.warning("\(link.id): signaling packet too short to answer")
                return
            }
            guard identifier != 0 else {
                // Identifier 0 is invalid; such a packet is dropped, never answered (Vol 3 Part A 4).
                logger.warning("\(link.id): signaling command 0x\(String(code, radix: 16)) with identifier 0 dropped")
                return
            }
            guard !LESignalingCommand.expectsNoAnswer(code) else {
                // A response (or indication) is never answered, even when it is wrong.
                logger.warning("\(link.id): malformed signaling response 0x\(String(code, radix: 16)) dropped")
                return
            }
            let reason: L2CAPRejectReason = payload.count > LESignalingCommand.minimumMTU ? .signalingMTUExceeded : .commandNotUnderstood
            let data: [UInt8] = reason == .signalingMTUExceeded ? [UInt8(LESignalingCommand.minimumMTU), 0] : []
            logger.warning("\(link.id): malformed signaling command 0x\(String(code, radix: 16)) rejected")
            reply(.commandReject(identifier: identifier, reason: reason.rawValue, data: data), on: link)
            return
        }
        switch command {
        case let .connectionParameterUpdateResponse(identifier, accepted):
            finish(identifier, on: link.id, with: accepted ? .accepted : .rejected)
        case let .commandReject(identifier, reason, _):
            finish(identifier, on: link.id, with: .commandRejected(reason: reason))
        case let .otherResponse(code, identifier):
            logger.debug("\(link.id): signaling response 0x\(String(code, radix: 16)) (identifier \(identifier)) to no request of ours; dropped")
        case let .connectionParameterUpdateRequest(identifier, parameters):
            guard link.role == .central else {
                // Only a peripheral sends this request (Vol 3 Part A 4.20); as the peripheral we reject it.
                reply(.commandReject(identifier: identifier, reason: L2CAPRejectReason.commandNotUnderstood.rawValue, data: []), on: link)
                return
            }
            let handler = state.withLock { $0.parameterRequestHandler }
            let accepted = Self.isValidUpdateRequest(parameters) && (handler?(link, parameters) ?? false)
            logger.info("\(link.id): connection parameter update request \(accepted ? "accepted" : "rejected"): interval \(parameters.intervalMin)…\(parameters.intervalMax) latency \(parameters.latency) timeout \(parameters.supervisionTimeout)")
            reply(.connectionParameterUpdateResponse(identifier: identifier, accepted: accepted), on: link)
        case let .disconnectionRequest(identifier, destination, source):
            // No dynamic channel is ever open here, so the CID is invalid: reject naming both endpoints.
            var data = ByteWriter()
            data.append(destination)
            data.append(source)
            reply(.commandReject(identifier: identifier, reason: L2CAPRejectReason.invalidChannelID.rawValue, data: data.bytes), on: link)
        case let .leCreditBasedConnectionRequest(identifier, spsm, _):
            logger.info("\(link.id): refusing an LE credit based channel to SPSM 0x\(String(spsm, radix: 16)): none is offered")
            reply(.leCreditBasedConnectionResponse(identifier: identifier, destination: 0, mtu: 0, mps: 0, credits: 0,
                                                   result: LESignalingCommand.resultSPSMNotSupported), on: link)
        case let .creditBasedConnectionRequest(identifier, spsm, sources):
            logger.info("\(link.id): refusing \(sources.count) credit based channel(s) to SPSM 0x\(String(spsm, radix: 16)): none is offered")
            reply(.creditBasedConnectionResponse(identifier: identifier, mtu: 0, mps: 0, credits: 0,
                                                 result: LESignalingCommand.resultSPSMNotSupported,
                                                 destinations: sources.map { _ in 0 }), on: link)
        case let .creditBasedReconfigureRequest(identifier, _):
            reply(.creditBasedReconfigureResponse(identifier: identifier, result: LESignalingCommand.resultInvalidDestinationCID), on: link)
        case let .flowControlCredit(_, channel, _):
            logger.debug("\(link.id): credits for channel 0x\(String(channel, radix: 16)), which does not exist; ignored")
        case let .unsupported(code, identifier):
            logger.debug("\(link.id): rejecting unsupported signaling command 0x\(String(code, radix: 16))")
            reply(.commandReject(identifier: identifier, reason: L2CAPRejectReason.commandNotUnderstood.rawValue, data: []), on: link)
        case .leCreditBasedConnectionResponse, .creditBasedConnectionResponse, .creditBasedReconfigureResponse:
            // Decoded as `.otherResponse`; listed for completeness.
            break
        }
    }

    private func reply(_ command: LESignalingCommand, on link: Link) {
        do {
            try send(command.encoded, channel: L2CAPChannelID.leSignaling, on: link)
        } catch {
            logger.warning("\(link.id): signaling reply not sent: \(error)")
        }
    }

    /// Until a security manager is attached, answer pairing with Pairing Failed: Pairing Not
    /// Supported (Vol 3 Part H 3.5.5) so the central fails fast instead of timing out.
    private func refusePairing(_ payload: [UInt8], on link: Link) {
        let pairingRequest: UInt8 = 0x01, pairingFailed: UInt8 = 0x05, pairingNotSupported: UInt8 = 0x05
        guard payload.first == pairingRequest else { return }
        do {
            try send([pairingFailed, pairingNotSupported], channel: L2CAPChannelID.securityManager, on: link)
        } catch {
            logger.warning("\(link.id): Pairing Failed not sent: \(error)")
        }
    }
}
