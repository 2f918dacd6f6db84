import ATT
import BLECore
import GATT
@testable import GATTClient
import Testing
import TestSupport

/// The client against a peer that answers by hand, including with nonsense.
@Suite(.scaledTimeLimit(minutes: 1)) struct ScriptedPeerTests {
    private let service = RemoteService(uuid: BluetoothUUID(0x180D), handles: 0x0010...0x0020)

    @Test func truncatedResponseFailsTheProcedureAndTheBearerStaysUsable() async throws {
        let peer = ScriptedPeer()
        let events = record(peer.client.events)
        let discovery = Task { try await peer.client.discoverPrimaryServices() }
        #expect(await peer.request(1) == .readByGroupTypeRequest(startHandle: 1, endHandle: 0xFFFF, groupType: GATTUUID.primaryService))
        peer.answer(bytes: [0x11, 0x06, 0x01])
        await #expect(throws: GATTClientError.self) { try await discovery.value }
        #expect(await events.wait(for: 1))

        let read = Task { try await peer.client.read(handle: 0x0003) }
        #expect(await peer.request(2) == .readRequest(handle: 0x0003))
        peer.answer(.readResponse(value: [0x2A]))
        #expect(try await read.value == [0x2A])
    }

    @Test func wrongResponseOpcodeIsUnexpected() async throws {
        let peer = ScriptedPeer()
        let read = Task { try await peer.client.read(handle: 0x0003) }
        _ = await peer.request(1)
        peer.answer(.writeResponse)
        await #expect(throws: GATTClientError.unexpectedResponse(expected: .readResponse, got: .writeResponse)) { try await read.value }
    }

    @Test func errorResponseForAnotherRequestIsMalformed() async throws {
        let peer = ScriptedPeer()
        let read = Task { try await peer.client.read(handle: 0x0003) }
        _ = await peer.request(1)
        peer.answer(.errorResponse(requestOpcode: .writeRequest, handle: 0x0003, error: .writeNotPermitted))
        let error = await #expect(throws: GATTClientError.self) { try await read.value }
        guard case .malformedResponse = error else {
            Issue.record("expected malformedResponse, got \(String(describing: error))")
            return
        }
    }

    @Test func unsolicitedResponseIsReportedAndIgnored() async throws {
        let peer = ScriptedPeer()
        let events = record(peer.client.events)
        peer.answer(.readResponse(value: [0x01]))
        #expect(await events.wait(for: 1))
        guard case .malformedPDU = events.all.first else {
            Issue.record("expected malformedPDU, got \(events.all)")
            return
        }
        let read = Task { try await peer.client.read(handle: 0x0005) }
        _ = await peer.request(1)
        peer.answer(.readResponse(value: [0x02]))
        #expect(try await read.value == [0x02])
    }

    @Test func readByTypeContinuationThatGoesBackwardsIsAProtocolError() async throws {
        let peer = ScriptedPeer()
        let discovery = Task { try await peer.client.discoverCharacteristics(of: service) }
        #expect(await peer.request(1) == .readByTypeRequest(startHandle: 0x0010, endHandle: 0x0020, attributeType: GATTUUID.characteristic))
        peer.answer(.readByTypeResponse(try ATTAttributeDataList([ATTHandleValue(handle: 0x0012, value: [0x02, 0x13, 0x00, 0x37, 0x2A])])))
        #expect(await peer.request(2) == .readByTypeRequest(startHandle: 0x0013, endHandle: 0x0020, attributeType: GATTUUID.characteristic))
        // Handle 0x0011 lies before the requested start: answering it again would loop forever.
        peer.answer(.readByTypeResponse(try ATTAttributeDataList([ATTHandleValue(handle: 0x0011, value: [0x02, 0x13, 0x00, 0x37, 0x2A])])))
        let error = await #expect(throws: GATTClientError.self) { try await discovery.value }
        guard case .malformedResponse = error else {
            Issue.record("expected malformedResponse, got \(String(describing: error))")
            return
        }
    }

    @Test func discoveryEndsAtAttributeNotFound() async throws {
        let peer = ScriptedPeer()
        let discovery = Task { try await peer.client.discoverCharacteristics(of: service) }
        _ = await peer.request(1)
        peer.answer(.readByTypeResponse(try ATTAttributeDataList([ATTHandleValue(handle: 0x0011, value: [0x10, 0x12, 0x00, 0x37, 0x2A])])))
        _ = await peer.request(2)
        peer.answer(.errorResponse(requestOpcode: .readByTypeRequest, handle: 0x0012, error: .attributeNotFound))
        let found = try await discovery.value
        #expect(found == [RemoteCharacteristic(uuid: BluetoothUUID(0x2A37), declarationHandle: 0x0011, valueHandle: 0x0012,
                                               properties: .notify, endHandle: 0x0020, service: service)])
    }

    @Test func prepareWriteEchoMismatchCancelsTheQueue() async throws {
        let peer = ScriptedPeer()
        let value = (0..<30).map { UInt8($0) }
        let write = Task { try await peer.client.write(value, toHandle: 0x0020) }
        #expect(await peer.request(1) == .prepareWriteRequest(handle: 0x0020, offset: 0, partValue: Array(value[0..<18])))
        peer.answer(.prepareWriteResponse(handle: 0x0020, offset: 0, partValue: Array(value[0..<17]) + [0xFF]))
        #expect(await peer.request(2) == .executeWriteRequest(.cancel))
        peer.answer(.executeWriteResponse)
        let error = await #expect(throws: GATTClientError.self) { try await write.value }
        guard case .malformedResponse = error else {
            Issue.record("expected malformedResponse, got \(String(describing: error))")
            return
        }
    }

    @Test func longReadStopsAtTheAttributeMaximum() async throws {
        let peer = ScriptedPeer()
        let read = Task { try await peer.client.read(handle: 0x0030) }
        #expect(await peer.request(1) == .readRequest(handle: 0x0030))
        peer.answer(.readResponse(value: [UInt8](repeating: 0xAA, count: 22)))
        var offset = 22
        var number = 2
        while offset < 512 {
            guard await peer.request(number) == .readBlobRequest(handle: 0x0030, offset: UInt16(offset)) else {
                Issue.record("expected Read Blob at offset \(offset)")
                return
            }
            peer.answer(.readBlobResponse(partValue: [UInt8](repeating: 0xBB, count: 22)))
            offset += 22
            number += 1
        }
        let value = try await read.value
        #expect(value.count == 512)
        #expect(peer.sent.all.count == number - 1)
    }

    @Test func longReadEndsOnInvalidOffset() async throws {
        let peer = ScriptedPeer()
        let read = Task { try await peer.client.read(handle: 0x0030) }
        _ = await peer.request(1)
        peer.answer(.readResponse(value: [UInt8](repeating: 0x01, count: 22)))
        #expect(await peer.request(2) == .readBlobRequest(handle: 0x0030, offset: 22))
        peer.answer(.errorResponse(requestOpcode: .readBlobRequest, handle: 0x0030, error: .invalidOffset))
        #expect(try await read.value == [UInt8](repeating: 0x01, count: 22))
    }
}
