import ATT
import BLECore
import GATT
@testable import GATTClient
import Testing
import TestSupport

/// Transaction timeout, link loss, the request queue and the bounded update stream.
@Suite(.scaledTimeLimit(minutes: 1)) struct LifecycleTests {
    @Test func transactionTimeoutClosesTheBearer() async throws {
        let peer = ScriptedPeer()
        let events = record(peer.client.events)
        let first = Task { try await peer.client.read(handle: 0x0003) }
        #expect(await peer.request(1) == .readRequest(handle: 0x0003))
        let queued = Task { try await peer.client.read(handle: 0x0004) }
        await waitUntilQueued(1, peer.client)

        peer.clock.advance(by: .seconds(29))
        #expect(events.all.isEmpty)
        peer.clock.advance(by: .seconds(1))
        await #expect(throws: GATTClientError.timeout) { try await first.value }
        await #expect(throws: GATTClientError.bearerClosed) { try await queued.value }
        #expect(await events.wait(for: 1))
        #expect(events.all == [.transactionTimedOut(.readRequest)])

        // No more ATT on this bearer: later requests fail at once and nothing is sent.
        await #expect(throws: GATTClientError.bearerClosed) { try await peer.client.read(handle: 0x0005) }
        #expect(throws: GATTClientError.bearerClosed) { try peer.client.writeWithoutResponse([0x01], toHandle: 0x0005) }
        #expect(!peer.client.canSendWriteWithoutResponse)
        // A late answer is dropped without effect.
        peer.answer(.readResponse(value: [0x01]))
        #expect(peer.sent.all.count == 1)
    }

    @Test func linkClosedFailsPendingAndQueuedRequests() async throws {
        let peer = ScriptedPeer()
        let updates = record(peer.client.updates)
        let first = Task { try await peer.client.read(handle: 0x0003) }
        _ = await peer.request(1)
        let queued = Task { try await peer.client.write([0x01], toHandle: 0x0004) }
        await waitUntilQueued(1, peer.client)
        peer.client.linkClosed()
        await #expect(throws: GATTClientError.disconnected) { try await first.value }
        await #expect(throws: GATTClientError.disconnected) { try await queued.value }
        await #expect(throws: GATTClientError.disconnected) { try await peer.client.exchangeMTU() }
        // The stream ended: the recorder's waits now return false instead of hanging.
        #expect(await updates.wait(for: 1) == false)
    }

    @Test func queuedProceduresRunOneAtATimeInOrder() async throws {
        let peer = ScriptedPeer()
        let first = Task { try await peer.client.read(handle: 0x0001) }
        _ = await peer.request(1)
        let second = Task { try await peer.client.read(handle: 0x0002) }
        await waitUntilQueued(1, peer.client)
        let third = Task { try await peer.client.read(handle: 0x0003) }
        await waitUntilQueued(2, peer.client)
        // Nothing else is sent while the first request is outstanding.
        #expect(peer.sent.all.count == 1)

        peer.answer(.readResponse(value: [0x01]))
        #expect(await peer.request(2) == .readRequest(handle: 0x0002))
        #expect(peer.sent.all.count == 2)
        peer.answer(.readResponse(value: [0x02]))
        #expect(await peer.request(3) == .readRequest(handle: 0x0003))
        peer.answer(.readResponse(value: [0x03]))
        #expect(try await first.value == [0x01])
        #expect(try await second.value == [0x02])
        #expect(try await third.value == [0x03])
    }

    @Test func indicationsAreConfirmedAndDropsAreCounted() async throws {
        let peer = ScriptedPeer(updateBufferLimit: 1)
        let events = record(peer.client.events)
        peer.answer(.handleValueIndication(handle: 0x0020, value: [0x01]))
        peer.answer(.handleValueIndication(handle: 0x0020, value: [0x02]))
        peer.answer(.handleValueNotification(handle: 0x0021, value: [0x03]))
        // Both indications were confirmed at once, whatever the consumer does.
        #expect(peer.sent.all == [[0x1E], [0x1E]])
        #expect(await events.wait(for: 2))
        #expect(events.all == [.indicationDropped(valueHandle: 0x0020), .indicationDropped(valueHandle: 0x0020)])
        #expect(peer.client.droppedUpdates == (notifications: 0, indications: 2))
        var iterator = peer.client.updates.makeAsyncIterator()
        #expect(await iterator.next() == ValueUpdate(valueHandle: 0x0021, value: [0x03], kind: .notification))
    }

    @Test func malformedServiceChangedValueInvalidatesEverything() async throws {
        let peer = ScriptedPeer()
        let events = record(peer.client.events)
        peer.client.setServiceChangedHandle(0x000A)
        peer.answer(.handleValueIndication(handle: 0x000A, value: [0x01, 0x00]))
        #expect(await events.wait(until: { $0.contains(.servicesChanged(0x0001...0xFFFF)) }))
        #expect(peer.sent.all == [[0x1E]])
    }

    @Test func routesClientBoundPDUs() {
        #expect(GATTClient.isClientBound(ATTPDU.readResponse(value: []).encode()))
        #expect(GATTClient.isClientBound(ATTPDU.errorResponse(requestOpcode: .readRequest, handle: 1, error: .invalidHandle).encode()))
        #expect(GATTClient.isClientBound(ATTPDU.handleValueIndication(handle: 1, value: []).encode()))
        #expect(GATTClient.isClientBound(ATTPDU.exchangeMTUResponse(serverRxMTU: 23).encode()))
        #expect(!GATTClient.isClientBound(ATTPDU.exchangeMTURequest(clientRxMTU: 23).encode()))
        #expect(!GATTClient.isClientBound(ATTPDU.writeCommand(handle: 1, value: []).encode()))
        #expect(!GATTClient.isClientBound(ATTPDU.handleValueConfirmation.encode()))
        #expect(!GATTClient.isClientBound([]))
        #expect(!GATTClient.isClientBound([0x3F]))
    }

    @Test func errorsReadAsInstructions() {
        let error = GATTClientError.attError(.insufficientAuthentication, handle: 0x002A, request: .readRequest)
        #expect(error.description == "ATT_READ_REQ on handle 0x002A failed: Insufficient Authentication (0x05) — the central must pair first (with MITM protection where the attribute asks for it)")
    }

    /// A barrier on the client's own queue: yields until `count` procedures wait for the bearer.
    private func waitUntilQueued(_ count: Int, _ client: GATTClient) async {
        while client.queuedProcedureCount < count { await Task.yield() }
    }

    /// The suites' time limit relies on it: a wait that never comes true ends when its task is cancelled.
    @Test func aRecorderWaitEndsWhenItsTaskIsCancelled() async {
        let recorder = Recorder<Int>()
        let waiting = Task { await recorder.wait(for: 1) }
        waiting.cancel()
        #expect(await waiting.value == false)
        recorder.append(1)
        #expect(await recorder.wait(for: 1))
    }
}
