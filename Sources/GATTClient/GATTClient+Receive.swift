import ATT
import BLECore

// Inbound PDUs: responses go to the outstanding request, server-initiated values to `updates`.
extension GATTClient {
    /// One client-bound ATT PDU from the peer (no L2CAP header). Never blocks; callable from any thread.
    public func receive(_ pdu: [UInt8]) {
        let att: ATTPDU
        do {
            att = try ATTPDU.decode(pdu)
        } catch {
            receiveMalformed(error)
            return
        }
        switch att {
        case let .handleValueNotification(handle, value):
            deliver(ValueUpdate(valueHandle: handle, value: value, kind: .notification))
        case let .multipleHandleValueNotification(tuples):
            for tuple in tuples { deliver(ValueUpdate(valueHandle: tuple.handle, value: tuple.value, kind: .notification)) }
        case let .handleValueIndication(handle, value):
            // Confirmed at once: the server sends no further indication until then (3.4.7.2), and
            // holding it back for a slow consumer would only stall the server.
            sendReliably(ATTPDU.handleValueConfirmation.encode())
            if handle != 0, handle == serviceChangedHandle { serviceChanged(value) }
            deliver(ValueUpdate(valueHandle: handle, value: value, kind: .indication))
        default:
            if att.opcode == .errorResponse || Self.responseOpcodes.contains(att.opcode) {
                answer(att)
            } else {
                logger.debug("GATT client: \(att.opcode) is not for the client role; dropped", metadata: ["link": "\(link.id)"])
            }
        }
    }

    /// Matches a response to the outstanding request; anything that does not fit fails it.
    private func answer(_ response: ATTPDU) {
        guard let (id, request) = state.withLock({ state in state.pending.map { ($0.id, $0.request) } }) else {
            reportMalformed("unsolicited \(response.opcode) with no request outstanding; dropped")
            return
        }
        let expected = request.responseOpcode ?? .errorResponse
        let result: Result<ATTPDU, GATTClientError>
        if case let .errorResponse(requestOpcode, handle, code) = response {
            if requestOpcode == request {
                result = .failure(.attError(code, handle: handle, request: requestOpcode))
            } else {
                let reason = "Error Response names \(requestOpcode) but \(request) is outstanding"
                reportMalformed(reason)
                result = .failure(.malformedResponse(reason))
            }
        } else if response.opcode == expected {
            result = .success(response)
        } else {
            reportMalformed("\(response.opcode) while waiting for \(expected)")
            result = .failure(.unexpectedResponse(expected: expected, got: response.opcode))
        }
        complete(id, with: result)
    }

    private func receiveMalformed(_ error: ATTDecodingError) {
        reportMalformed(error.description)
        guard let opcode = error.opcode else { return }
        if opcode == .handleValueIndication {
            // The server still waits for a confirmation; without it, no further indication could come.
            sendReliably(ATTPDU.handleValueConfirmation.encode())
            return
        }
        guard opcode == .errorResponse || Self.responseOpcodes.contains(opcode),
              let id = state.withLock({ $0.pending?.id }) else { return }
        complete(id, with: .failure(.malformedResponse(error.description)))
    }

    private func reportMalformed(_ description: String) {
        logger.warning("GATT client: \(description)", metadata: ["link": "\(link.id)"])
        emit(.malformedPDU(description))
    }

    /// Queues an update; the bounded buffer drops the oldest value when the consumer falls behind.
    private func deliver(_ update: ValueUpdate) {
        guard case let .dropped(lost) = updateSink.yield(update) else { return }
        switch lost.kind {
        case .notification:
            state.withLock { $0.droppedNotifications += 1 }
        case .indication:
            state.withLock { $0.droppedIndications += 1 }
            logger.warning("GATT client: updates buffer full; a confirmed indication of \(lost.valueHandle.hexLiteral) was dropped",
                           metadata: ["link": "\(link.id)"])
            emit(.indicationDropped(valueHandle: lost.valueHandle))
        }
    }

    /// Service Changed (Core Vol 3 Part G 7.1): cached results in the range are stale now.
    private func serviceChanged(_ value: [UInt8]) {
        var reader = ByteReader(value)
        let range: ClosedRange<UInt16>
        if value.count == 4, let start = try? reader.readUInt16(), let end = try? reader.readUInt16(), start != 0, start <= end {
            range = start...end
        } else {
            // Unusable range: assume everything changed rather than keep stale handles.
            reportMalformed("Service Changed value \(value.hexString) is not a valid handle range; treating the whole database as changed")
            range = 0x0001...0xFFFF
        }
        state.withLock { $0.invalidate(range) }
        logger.info("GATT client: services changed in \(range.lowerBound.hexLiteral)…\(range.upperBound.hexLiteral)", metadata: ["link": "\(link.id)"])
        emit(.servicesChanged(range))
    }
}
