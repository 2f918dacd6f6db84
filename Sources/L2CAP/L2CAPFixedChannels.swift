import BLECore
import HCI
import Logging
import Synchronization

/// The fixed channels of every LE connection: routes inbound B-frames to the ATT and SMP handlers,
/// answers LE signaling itself, and sends outbound payloads through the ACL flow controller.
///
/// Calling context: `receive` is called in order for each connection (from the GAP event loop);
/// handlers run on that caller's context and must not block. Every method is thread-safe.
public final class L2CAPFixedChannels: Sendable {
    public typealias ChannelHandler = @Sendable (_ connection: UInt16, _ payload: [UInt8]) -> Void

    struct PendingRequest {
        let connection: UInt16
        let continuation: CheckedContinuation<ConnectionParameterUpdateResult, Never>
    }

    struct State {
        var handlers: [UInt16: ChannelHandler] = [:]
        var nextIdentifier: UInt8 = 1
        var pending: [UInt8: PendingRequest] = [:]
    }

    private let state = Mutex(State())
    private let acl: ACLFlowController
    private let logger: Logger

    public init(acl: ACLFlowController, logger: Logger = Logger(label: "blesensor.l2cap")) {
        self.acl = acl
        self.logger = logger
    }

    /// Installs the upper layer for a fixed channel (ATT on 0x0004, SMP on 0x0006).
    public func setHandler(for channelID: UInt16, _ handler: @escaping ChannelHandler) {
        state.withLock { $0.handlers[channelID] = handler }
    }

    /// Sends a payload on a fixed channel of a connection.
    public func send(_ payload: [UInt8], channel channelID: UInt16, on connection: UInt16) throws(ACLSendError) {
        try acl.enqueue(L2CAPBasicFrame.pdu(channelID: channelID, payload: payload), on: connection)
    }

    /// Handles one reassembled PDU from a connection.
    public func receive(_ pdu: [UInt8], on connection: UInt16) {
        let frame: L2CAPBasicFrame
        do {
            frame = try L2CAPBasicFrame(pdu: pdu)
        } catch {
            logger.warning("connection 0x\(String(connection, radix: 16)): dropping frame: \(error)")
            return
        }
        switch frame.channelID {
        case L2CAPChannelID.leSignaling:
            receiveSignaling(frame.payload, on: connection)
        case L2CAPChannelID.attribute, L2CAPChannelID.securityManager:
            if let handler = state.withLock({ $0.handlers[frame.channelID] }) {
                handler(connection, frame.payload)
            } else if frame.channelID == L2CAPChannelID.securityManager {
                refusePairing(frame.payload, on: connection)
            } else {
                logger.debug("connection 0x\(String(connection, radix: 16)): no ATT server attached; dropping \(frame.payload.count) bytes")
            }
        default:
            // Dynamic channels are never opened by us, so anything else is stray.
            logger.debug("connection 0x\(String(connection, radix: 16)): dropping frame for unknown channel 0x\(String(frame.channelID, radix: 16))")
        }
    }

    /// Asks the central for new connection parameters (a peripheral may only ask; the central decides).
    public func requestConnectionParameterUpdate(_ parameters: LEConnectionParameters, on connection: UInt16,
                                                 timeout: Duration = .seconds(30)) async -> ConnectionParameterUpdateResult {
        await withCheckedContinuation { continuation in
            let identifier: UInt8 = state.withLock { state in
                let identifier = state.nextIdentifier
                state.nextIdentifier = identifier == 255 ? 1 : identifier + 1
                state.pending[identifier] = PendingRequest(connection: connection, continuation: continuation)
                return identifier
            }
            let request = LESignalingCommand.connectionParameterUpdateRequest(identifier: identifier, parameters: parameters)
            do throws(ACLSendError) {
                try send(request.encoded, channel: L2CAPChannelID.leSignaling, on: connection)
            } catch {
                finish(identifier, with: .sendFailed(error))
                return
            }
            Task { [weak self] in
                try? await Task.sleep(for: timeout)
                self?.finish(identifier, with: .timedOut)
            }
        }
    }

    /// Fails the connection's outstanding signaling requests.
    public func connectionClosed(_ connection: UInt16) {
        let abandoned = state.withLock { state -> [PendingRequest] in
            let matching = state.pending.filter { $0.value.connection == connection }
            for identifier in matching.keys { state.pending.removeValue(forKey: identifier) }
            return Array(matching.values)
        }
        for request in abandoned { request.continuation.resume(returning: .connectionClosed) }
    }

    private func finish(_ identifier: UInt8, with result: ConnectionParameterUpdateResult) {
        let request = state.withLock { $0.pending.removeValue(forKey: identifier) }
        request?.continuation.resume(returning: result)
    }

    private func receiveSignaling(_ payload: [UInt8], on connection: UInt16) {
        let command: LESignalingCommand
        do throws(LESignalingDecodingError) {
            command = try LESignalingCommand(decoding: payload)
        } catch {
            guard case let .malformed(code, identifier) = error else {
                logger.warning("connection 0x\(String(connection, radix: 16)): signaling packet too short to answer")
                return
            }
            let reason: L2CAPRejectReason = payload.count > LESignalingCommand.minimumMTU ? .signalingMTUExceeded : .commandNotUnderstood
            let data: [UInt8] = reason == .signalingMTUExceeded ? [UInt8(LESignalingCommand.minimumMTU), 0] : []
            logger.warning("connection 0x\(String(connection, radix: 16)): malformed signaling command 0x\(String(code, radix: 16)) rejected")
            reply(.commandReject(identifier: identifier, reason: reason.rawValue, data: data), on: connection)
            return
        }
        switch command {
        case let .connectionParameterUpdateResponse(identifier, accepted):
            finish(identifier, with: accepted ? .accepted : .rejected)
        case let .commandReject(identifier, reason, _):
            finish(identifier, with: .commandRejected(reason: reason))
        case let .connectionParameterUpdateRequest(identifier, _):
            // Only a peripheral sends this request; as the peripheral we do not accept it.
            reply(.commandReject(identifier: identifier, reason: L2CAPRejectReason.commandNotUnderstood.rawValue, data: []), on: connection)
        case let .unsupported(code, identifier):
            logger.debug("connection 0x\(String(connection, radix: 16)): rejecting unsupported signaling command 0x\(String(code, radix: 16))")
            reply(.commandReject(identifier: identifier, reason: L2CAPRejectReason.commandNotUnderstood.rawValue, data: []), on: connection)
        }
    }

    private func reply(_ command: LESignalingCommand, on connection: UInt16) {
        do {
            try send(command.encoded, channel: L2CAPChannelID.leSignaling, on: connection)
        } catch {
            logger.warning("connection 0x\(String(connection, radix: 16)): signaling reply not sent: \(error)")
        }
    }

    /// Until a security manager is attached, answer pairing with Pairing Failed: Pairing Not
    /// Supported (Vol 3 Part H 3.5.5) so the central fails fast instead of timing out.
    private func refusePairing(_ payload: [UInt8], on connection: UInt16) {
        let pairingRequest: UInt8 = 0x01, pairingFailed: UInt8 = 0x05, pairingNotSupported: UInt8 = 0x05
        guard payload.first == pairingRequest else { return }
        do {
            try send([pairingFailed, pairingNotSupported], channel: L2CAPChannelID.securityManager, on: connection)
        } catch {
            logger.warning("connection 0x\(String(connection, radix: 16)): Pairing Failed not sent: \(error)")
        }
    }
}
