import ATT
import BLECore
import GATT
import HCI
import Logging

// Decoding one inbound PDU and routing it (Core v5.4 Vol 3 Part F 3.3, 3.4.9).
extension GATTServer {
    func process(_ bytes: [UInt8], context: ConnectionContext) async {
        let pdu: ATTPDU
        do {
            pdu = try ATTPDU.decode(bytes)
        } catch {
            logger.debug("ATT: undecodable PDU: \(error)",
                         metadata: ["link": "\(context.link.id)", "pdu": "\(bytes.hexString)"])
            if let response = error.errorResponse { await reply(response, context: context) }
            return
        }

        switch pdu {
        case let .exchangeMTURequest(clientRxMTU):
            await exchangeMTU(clientRxMTU: clientRxMTU, context: context)
        case .findInformationRequest, .findByTypeValueRequest, .readByTypeRequest, .readByGroupTypeRequest,
             .readRequest, .readBlobRequest, .readMultipleRequest, .readMultipleVariableRequest,
             .writeRequest, .prepareWriteRequest, .executeWriteRequest:
            let response: ATTPDU
            var context = context
            let afterAnswer = AfterAnswer()
            context.afterAnswer = afterAnswer
            do {
                try checkChangeAwareness(of: pdu, context: context)
                response = try await answer(pdu, context: context)
            } catch {
                logger.debug("ATT: \(pdu.opcode) failed: \(error.code)",
                             metadata: ["link": "\(context.link.id)", "handle": "\(error.handle)"])
                response = .errorResponse(for: pdu.opcode, handle: error.handle, error: error.code)
            }
            await reply(response, context: context)
            // A link that closed meanwhile has no subscriptions left to announce.
            if state.withLock({ $0.connections[context.link.id] != nil }) { afterAnswer.run() }
        case let .writeCommand(handle, value):
            guard isChangeAwareForCommand(context) else { return }
            await writeCommand(handle: handle, value: value, context: context)
        case let .signedWriteCommand(handle, value, signature):
            guard isChangeAwareForCommand(context) else { return }
            await signedWriteCommand(handle: handle, value: value, signature: signature.bytes, context: context)
        case .handleValueConfirmation:
            // Normally handled on arrival; one that carried extra octets ends up here.
            logger.debug("ATT: malformed Handle Value Confirmation ignored", metadata: ["link": "\(context.link.id)"])
        case let .unknown(opcode, _):
            if pdu.isRequest {
                await reply(.errorResponse(for: opcode, handle: 0x0000, error: .requestNotSupported), context: context)
            } else {
                logger.debug("ATT: unsupported command \(opcode) ignored", metadata: ["link": "\(context.link.id)"])
            }
        case .errorResponse, .exchangeMTUResponse, .findInformationResponse, .findByTypeValueResponse,
             .readByTypeResponse, .readResponse, .readBlobResponse, .readMultipleResponse,
             .readByGroupTypeResponse, .readMultipleVariableResponse, .writeResponse, .prepareWriteResponse,
             .executeWriteResponse, .handleValueNotification, .handleValueIndication,
             .multipleHandleValueNotification:
            // We never act as a client, so responses and server-initiated PDUs have nothing to match.
            logger.info("ATT: \(pdu.opcode) from the client ignored; this server sends no requests",
                        metadata: ["link": "\(context.link.id)"])
        }
    }

    /// The response to a request that may fail with an Error Response.
    private func answer(_ pdu: ATTPDU, context: ConnectionContext) async throws(RequestError) -> ATTPDU {
        switch pdu {
        case let .findInformationRequest(start, end):
            return try findInformation(start: start, end: end, context: context)
        case let .findByTypeValueRequest(start, end, type, value):
            return try findByTypeValue(start: start, end: end, type: type, value: value, context: context)
        case let .readByTypeRequest(start, end, type):
            return try await readByType(start: start, end: end, type: type, context: context)
        case let .readByGroupTypeRequest(start, end, type):
            return try readByGroupType(start: start, end: end, type: type, context: context)
        case let .readRequest(handle):
            return try await read(handle: handle, context: context)
        case let .readBlobRequest(handle, offset):
            return try await readBlob(handle: handle, offset: offset, context: context)
        case let .readMultipleRequest(handles):
            return try await readMultiple(handles: handles, variable: false, context: context)
        case let .readMultipleVariableRequest(handles):
            return try await readMultiple(handles: handles, variable: true, context: context)
        case let .writeRequest(handle, value):
            try await writeRequest(handle: handle, value: value, context: context)
            return .writeResponse
        case let .prepareWriteRequest(handle, offset, part):
            return try prepareWrite(handle: handle, offset: offset, part: part, context: context)
        case let .executeWriteRequest(flags):
            try await executeWrite(flags, context: context)
            return .executeWriteResponse
        default:
            return .errorResponse(for: pdu.opcode, handle: 0x0000, error: .requestNotSupported)
        }
    }

    /// Exchange MTU (3.4.2). A client sends it at most once per link (3.4.2.1); a repeated one
    /// is still answered with our Rx MTU so the client is not left waiting, but the MTU negotiated
    /// first stays in force, because changing it mid-connection would desynchronise the two sides.
    private func exchangeMTU(clientRxMTU: UInt16, context: ConnectionContext) async {
        let negotiated = ATTConstants.negotiatedMTU(clientRxMTU: clientRxMTU, serverRxMTU: serverRxMTU)
        // nil when the link is gone; `changedTo` nil for a repeated exchange.
        let outcome = withConnection(context) { entry -> (repeated: Bool, changedTo: Int?) in
            guard !entry.mtuExchanged else { return (true, nil) }
            entry.mtuExchanged = true
            // Reported even when it stays 23: the exchange itself is news to the application.
            return (false, negotiated)
        }
        if outcome?.repeated == true {
            logger.info("ATT: repeated Exchange MTU answered; the MTU negotiated first stays in force",
                        metadata: ["link": "\(context.link.id)", "clientRxMTU": "\(clientRxMTU)"])
        }
        // The response goes out before the new MTU is used for anything (3.4.2.2).
        await reply(.exchangeMTUResponse(serverRxMTU: serverRxMTU), context: context)
        if let mtu = outcome?.changedTo {
            context.link.setMTU(mtu)
            delegate.mtuChanged(link: context.link, mtu: mtu)
        }
    }

    /// A Handle Value Confirmation: the delegate completes the outstanding indication; a confirmed
    /// Service Changed makes a robust-caching client change-aware.
    func confirmationReceived(on link: Link) {
        guard let handle = delegate.indicationConfirmed(link: link) else { return }
        let becameAware = state.withLock { state -> Bool in
            guard handle == state.database.valueHandle(for: .serviceChanged),
                  let entry = state.connections[link.id], entry.robustCachingEnabled else { return false }
            state.connections[link.id]?.caching = RobustCaching()
            return !entry.caching.changeAware
        }
        if becameAware { delegate.clientStateChanged(link: link) }
    }
}
