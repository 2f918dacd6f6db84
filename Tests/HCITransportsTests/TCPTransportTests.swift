import BLECore
import HCI
import Logging
import Synchronization
import Testing
import TestSupport

@testable import HCITransports

@Suite struct TCPTransportTests {
    let reset = HCIPacket(type: .command, body: [0x03, 0x0C, 0x00])
    let commandComplete: [UInt8] = [0x04, 0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00]
    let aclData: [UInt8] = [0x02, 0x40, 0x20, 0x03, 0x00, 0xAA, 0xBB, 0xCC]

    /// Opens a transport to `server`, which is listening already.
    func connected(_ server: TestTCPServer, recorder: EventRecorder, options: TransportOptions = TransportOptions()) async throws -> TCPTransport {
        let transport = TCPTransport(host: "127.0.0.1", port: server.port, logger: Logger(label: "test"), options: options)
        try server.listen()
        try await transport.open(handler: recorder.handler)
        try server.accept()
        return transport
    }

    @Test(.scaledTimeLimit(minutes: 1))
    func retriesUntilServerListensThenCarriesPacketsBothWays() async throws {
        let server = try TestTCPServer()
        let (logger, logs) = CapturingLogHandler.logger()
        let transport = TCPTransport(host: "127.0.0.1", port: server.port, logger: logger)
        let recorder = EventRecorder()

        let opening = Task { try await transport.open(handler: recorder.handler) }
        // The client must have been refused and be backing off before the server appears.
        await logs.waitForMessages(at: .debug, count: 3)
        let retries = logs.messages(at: .debug)
        #expect(retries.count >= 3)
        #expect(retries.first?.contains("Connection refused") == true)
        #expect(retries.first?.contains("retrying in 50 ms") == true)
        #expect(retries.dropFirst().first?.contains("retrying in 100 ms") == true)

        try server.listen()
        try server.accept()
        try await opening.value
        #expect(logs.messages(at: .info).contains { $0.contains("connected to tcp:127.0.0.1:\(server.port)") })

        try transport.send(reset)
        #expect(try server.read(count: 4) == [0x01, 0x03, 0x0C, 0x00])

        // Two packets in one segment, then one split across two writes.
        try server.write(commandComplete + aclData)
        try server.write(Array(commandComplete[..<3]))
        #expect(await recorder.waitForPackets(2).count == 2)
        try server.write(Array(commandComplete[3...]))
        let packets = await recorder.waitForPackets(3)
        #expect(packets.map(\.h4Bytes) == [commandComplete, aclData, commandComplete])

        server.closeConnection()
        let closed = await recorder.waitForClosed()
        #expect(closed == .some(.disconnected("tcp peer closed the connection")))
        #expect(throws: HCITransportError.notOpen(transport.name)) { try transport.send(reset) }
        transport.close()
        #expect(recorder.closures.count == 1)
    }

    @Test func hostCloseReportsClosedNilExactlyOnce() async throws {
        let server = try TestTCPServer()
        let recorder = EventRecorder()
        let transport = try await connected(server, recorder: recorder)

        transport.close()
        transport.close()
        // Liveness only (the suite's time limit bounds it): a wall-clock bound on how soon failed
        // here when a loaded two-core machine delayed the event loop's wake-up by 31 s.
        let closed = await recorder.waitForClosed(timeout: .seconds(60).scaledForTests)
        #expect(closed == .some(nil))
        transport.close()
        // Give a wrongly duplicated event the chance to show up.
        _ = await recorder.wait(timeout: .milliseconds(200)) { $0.count > 1 }
        #expect(recorder.events.count == 1)
        #expect(throws: HCITransportError.notOpen(transport.name)) { try transport.send(reset) }
        // The server sees the socket closed.
        #expect(throws: TestSocketError.self) { _ = try server.read(count: 1) }
    }

    @Test func framingLossClosesWithTheOffendingByte() async throws {
        let server = try TestTCPServer()
        let recorder = EventRecorder()
        let transport = try await connected(server, recorder: recorder)
        try server.write(commandComplete + [0x7F, 0x00])
        let closed = await recorder.waitForClosed()
        guard case let .some(.some(.framingLost(message))) = closed else {
            Issue.record("expected framingLost, got \(String(describing: closed))")
            return
        }
        #expect(message.contains("0x7f"))
        #expect(recorder.packets.map(\.h4Bytes) == [commandComplete])
        transport.close()
    }

    @Test func cancellingTheOpeningTaskThrowsCancelled() async throws {
        let server = try TestTCPServer()  // never listens
        let (logger, logs) = CapturingLogHandler.logger()
        let transport = TCPTransport(host: "localhost", port: server.port, logger: logger)
        let opening = Task { try await transport.open { _ in } }
        await logs.waitForMessages(at: .debug, count: 1)   // refused once, retrying
        opening.cancel()
        let result = await opening.result
        #expect(throws: HCITransportError.cancelled("connecting to tcp:localhost:\(server.port)")) { try result.get() }
    }

    @Test func closeWhileRetryingAbandonsOpen() async throws {
        let server = try TestTCPServer()
        let (logger, logs) = CapturingLogHandler.logger()
        let transport = TCPTransport(host: "::1", port: server.port, logger: logger)
        #expect(transport.name == "tcp:[::1]:\(server.port)")
        let opening = Task { try await transport.open { _ in } }
        await logs.waitForMessages(at: .debug, count: 1)   // refused once, retrying
        transport.close()
        let result = await opening.result
        #expect(throws: HCITransportError.self) { try result.get() }
        await #expect(throws: HCITransportError.notOpen(transport.name)) { try await transport.open { _ in } }
    }

    @Test func sendBeforeOpenAndOpenTwiceAreRejected() async throws {
        let server = try TestTCPServer()
        let transport = TCPTransport(host: "127.0.0.1", port: server.port, logger: Logger(label: "test"))
        #expect(throws: HCITransportError.notOpen(transport.name)) { try transport.send(reset) }
        let recorder = EventRecorder()
        try server.listen()
        try await transport.open(handler: recorder.handler)
        await #expect(throws: HCITransportError.alreadyOpen(transport.name)) { try await transport.open { _ in } }
        transport.close()
        #expect(await recorder.waitForClosed() == .some(nil))
    }

    @Test func unresolvableHostFailsWithoutRetrying() async {
        let transport = TCPTransport(host: "no-such-host.invalid", port: 1, logger: Logger(label: "test"))
        await #expect {
            try await transport.open { _ in }
        } throws: { error in
            guard case let .invalidSpecification(spec, reason) = error as? HCITransportError else { return false }
            return spec == "tcp:no-such-host.invalid:1" && reason.hasPrefix("cannot resolve host 'no-such-host.invalid'")
        }
    }

    static let largestACL = HCIPacket(type: .acl, body: [0x40, 0x20, 0xFF, 0xFF] + [UInt8](repeating: 0xA5, count: 65535))

    @Test(.scaledTimeLimit(minutes: 1))
    func sendNeverBlocksAndAFullSocketDrainsInOrderSeveralPacketsPerWrite() async throws {
        let server = try TestTCPServer()
        let recorder = EventRecorder()
        let transport = try await connected(server, recorder: recorder)
        let count = 100  // 6.5 MB: more than the loopback socket buffers hold
        // All of it is queued at once, from this (cooperative) thread: send only queues.
        for _ in 0..<count { try transport.send(Self.largestACL) }
        let connection = server.connection
        let received = try await onThread { try TestIO.read(connection, count: count * Self.largestACL.h4Bytes.count) }
        #expect(received == Array([[UInt8]](repeating: Self.largestACL.h4Bytes, count: count).joined()))
        let statistics = try #require(transport.writeStatistics)
        #expect(statistics.packets == count)
        #expect(statistics.calls < count)
        transport.close()
        #expect(await recorder.waitForClosed() == .some(nil))
    }

    @Test(.scaledTimeLimit(minutes: 1))
    func aPeerThatStopsReadingIsReportedAsStalledAndCloseStillWorks() async throws {
        let server = try TestTCPServer()
        let recorder = EventRecorder()
        let clock = ManualClock()
        var options = TransportOptions()
        options.clock = clock
        let transport = try await connected(server, recorder: recorder, options: options)
        // The server never reads: the socket fills and the rest waits in the queue.
        for _ in 0..<200 { try transport.send(Self.largestACL) }
        await clock.waitForTimers(atLeast: 1)   // the stall check is armed once a write would block
        clock.advance(by: .milliseconds(1999))
        #expect(!recorder.events.contains { if case .stalled = $0 { return true } else { return false } })
        clock.advance(by: .milliseconds(1))
        let events = await recorder.wait { events in events.contains { if case .stalled = $0 { return true } else { return false } } }
        let stalled = events.compactMap { if case let .stalled(error) = $0 { return error } else { return nil } }
        #expect(stalled == [.stalled(transport.name, milliseconds: 2000)])
        #expect(stalled.first?.description.hasPrefix("controller link stalled") == true)
        // SIGTERM's path: close ends the link at once, queued packets or not.
        transport.close()
        #expect(await recorder.waitForClosed() == .some(nil))
        #expect(recorder.closures.count == 1)
        #expect(throws: HCITransportError.notOpen(transport.name)) { try transport.send(reset) }
    }

    @Test(.scaledTimeLimit(minutes: 1))
    func theWriteQueueIsBounded() async throws {
        let server = try TestTCPServer()
        let recorder = EventRecorder()
        var options = TransportOptions()
        options.maxQueuedPackets = 8
        options.clock = ManualClock()
        let transport = try await connected(server, recorder: recorder, options: options)
        var queued = 0
        do {
            for _ in 0..<1000 {
                try transport.send(Self.largestACL)
                queued += 1
            }
            Issue.record("1000 packets of 64 KiB were accepted with nobody reading")
        } catch {
            #expect(error == .transmitQueueFull(transport.name, limit: 8))
        }
        #expect(queued < 1000)
        transport.close()
        #expect(await recorder.waitForClosed() == .some(nil))
    }

    @Test(.scaledTimeLimit(minutes: 1))
    func packetsOfAClosedLinkThatWaitAreDiscarded() async throws {
        let server = try TestTCPServer()
        let recorder = EventRecorder()
        var options = TransportOptions()
        options.clock = ManualClock()
        let transport = try await connected(server, recorder: recorder, options: options)
        // Fill the socket so later packets wait in the queue.
        let filler = HCIPacket(type: .acl, body: [0x01, 0x20, 0xFF, 0xFF] + [UInt8](repeating: 0x11, count: 65535))
        var sent = 0
        while transport.queuedPackets == 0 {
            try transport.send(filler)
            sent += 1
        }
        let forClosedLink = HCIPacket(type: .acl, body: [0x40, 0x20, 0x01, 0x00, 0xC1])
        let forOtherLink = HCIPacket(type: .acl, body: [0x41, 0x20, 0x01, 0x00, 0xC2])
        try transport.send(forClosedLink)
        try transport.send(forOtherLink)
        try transport.send(reset)
        transport.discardQueuedACL(handle: 0x040)
        let expected = Array([[UInt8]](repeating: filler.h4Bytes, count: sent).joined()) + forOtherLink.h4Bytes + reset.h4Bytes
        let connection = server.connection
        let received = try await onThread { try TestIO.read(connection, count: expected.count) }
        #expect(received == expected)
        transport.close()
        #expect(await recorder.waitForClosed() == .some(nil))
    }

    @Test(.scaledTimeLimit(minutes: 1))
    func packetsSentInACombiningScopeLeaveInOneWriteWhenItEnds() async throws {
        let server = try TestTCPServer()
        let recorder = EventRecorder()
        let transport = try await connected(server, recorder: recorder)
        let packets = (0..<10).map { HCIPacket(type: .acl, body: [0x40, 0x20, 0x01, 0x00, UInt8($0)]) }
        let before = try #require(transport.writeStatistics)
        transport.combiningWrites {
            transport.combiningWrites {
                for packet in packets { try? transport.send(packet) }
            }
            // The inner scope ending writes nothing: the outer one is still open.
            #expect(transport.queuedPackets == packets.count)
        }
        #expect(transport.queuedPackets == 0)
        let after = try #require(transport.writeStatistics)
        #expect(after.packets - before.packets == packets.count)
        #expect(after.calls - before.calls == 1)
        let expected = Array(packets.map(\.h4Bytes).joined())
        let connection = server.connection
        #expect(try await onThread { try TestIO.read(connection, count: expected.count) } == expected)
        transport.close()
        #expect(await recorder.waitForClosed() == .some(nil))
    }

    /// After a read of credits alone the loop waits a window for more only where more can gather:
    /// PDUs wait in the host, or credits come back densely (a fast timer). Sparse credits with
    /// nothing waiting (a 50 Hz timer) are read as they come, and one buffer never waits.
    @Test(.scaledTimeLimit(minutes: 1))
    func creditsAreAwaitedOnlyWhereMoreCanGather() async throws {
        let server = try TestTCPServer()
        let recorder = EventRecorder()
        let clock = ManualClock()
        var options = TransportOptions()
        options.clock = clock
        options.creditReturnModeration = .milliseconds(1)
        let transport = try await connected(server, recorder: recorder, options: options)
        let credits = Mutex(ACLCredits(inFlight: 0, capacity: 8, waiting: 0))
        transport.setCreditSource { credits.withLock { $0 } }
        let creditReturn: [UInt8] = [0x04, 0x13, 0x05, 0x01, 0x40, 0x00, 0x01, 0x00]
        var delivered = 0
        // Credits alone, then a packet read after them: once it is delivered, the loop has decided.
        func creditsReturned(after gap: Duration) async throws -> Int {
            clock.advance(by: gap)
            try server.write(creditReturn)
            delivered += 1
            _ = await recorder.waitForPackets(delivered)
            try server.write(commandComplete)
            delivered += 1
            _ = await recorder.waitForPackets(delivered)
            return try #require(transport.timesWaitedForCredits)
        }
        #expect(try await creditsReturned(after: .zero) == 0, "the first credits: nothing to compare with")
        #expect(try await creditsReturned(after: .milliseconds(20)) == 0, "sparse, nothing waiting")
        #expect(try await creditsReturned(after: .microseconds(500)) == 1, "dense")
        credits.withLock { $0.waiting = 3 }
        #expect(try await creditsReturned(after: .milliseconds(20)) == 2, "sparse, but PDUs wait for credits")
        credits.withLock { $0 = ACLCredits(inFlight: 0, capacity: 1, waiting: 3) }
        #expect(try await creditsReturned(after: .microseconds(500)) == 2, "one buffer: one credit at a time")
        #expect(recorder.packets.count == delivered)
        transport.close()
        #expect(await recorder.waitForClosed() == .some(nil))
    }

    @Test(.scaledTimeLimit(minutes: 1), arguments: [Duration.zero, .milliseconds(1), .milliseconds(50)])
    func creditReturnModerationLosesAndReordersNothing(moderation: Duration) async throws {
        let server = try TestTCPServer()
        let recorder = EventRecorder()
        var options = TransportOptions()
        options.creditReturnModeration = moderation
        let transport = try await connected(server, recorder: recorder, options: options)
        // Credits alone, then credits, then other traffic: all of it arrives, in order.
        let credits: [UInt8] = [0x04, 0x13, 0x05, 0x01, 0x40, 0x00, 0x01, 0x00]
        try server.write(credits)
        #expect(await recorder.waitForPackets(1).map(\.h4Bytes) == [credits])
        try server.write(credits)
        try server.write(commandComplete + aclData)
        let packets = await recorder.waitForPackets(4)
        #expect(packets.map(\.h4Bytes) == [credits, credits, commandComplete, aclData])
        // A send during the window goes out at once.
        try transport.send(reset)
        #expect(try server.read(count: 4) == [0x01, 0x03, 0x0C, 0x00])
        transport.close()
        #expect(await recorder.waitForClosed() == .some(nil))
    }
}
