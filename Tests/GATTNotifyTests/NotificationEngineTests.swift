import Testing
@testable import GATTNotify

@Suite struct PDUFormatTests {
    @Test func notificationAndIndicationFrames() throws {
        let sink = FakeSink()
        let engine = NotificationEngine(sink: sink)
        try engine.addConnection(0x0040)
        #expect(engine.update([0x01, 0x02], characteristic: 0x002A, to: 0x0040))
        #expect(engine.update([0xAA], characteristic: 0x0103, policy: .indication, to: 0x0040))
        // L2CAP basic header (length LE, CID 0x0004), then ATT opcode, handle LE, value (Vol 3 Part F 3.4.7).
        #expect(sink.sent(on: 0x0040) == [
            [0x05, 0x00, 0x04, 0x00, 0x1B, 0x2A, 0x00, 0x01, 0x02],
            [0x04, 0x00, 0x04, 0x00, 0x1D, 0x03, 0x01, 0xAA],
        ])
    }

    @Test func emptyValueIsAValidNotification() throws {
        let sink = FakeSink()
        let engine = NotificationEngine(sink: sink)
        try engine.addConnection(1)
        engine.update([], characteristic: 0x0010, to: 1)
        #expect(sink.sent(on: 1) == [[0x03, 0x00, 0x04, 0x00, 0x1B, 0x10, 0x00]])
    }
}

@Suite struct CoalescingTests {
    @Test func floodWhileStalledKeepsOneValuePerCharacteristicAndDeliversTheLatest() throws {
        let sink = FakeSink(allowance: 0)
        let engine = NotificationEngine(sink: sink, defaultLimits: try limits(8, 4096))
        try engine.addConnection(1, mtu: 247)
        for i in 0..<10_000 {
            let value: [UInt8] = [UInt8(i & 0xFF), UInt8(i >> 8), 0x55]
            #expect(engine.update(value, characteristic: 0x0020 + UInt16(i % 3), to: 1))
        }
        let stalled = try #require(engine.statistics()[connection: 1])
        #expect(stalled.queuedEntries == 3)
        #expect(stalled.queuedBytes == 9)
        #expect(stalled.counters.maximumDepth == 3)
        #expect(stalled.counters.enqueued == 10_000)
        #expect(stalled.counters.coalesced == 10_000 - 3)
        for characteristic in UInt16(0x20)...0x22 {
            #expect(stalled.characteristics[characteristic]?.maximumDepth == 1)
        }
        #expect(sink.sent(on: 1).isEmpty)

        sink.allow(.max, on: 1)
        engine.pump()
        // Each characteristic kept its queue position (first update) and carries its last value.
        #expect(try sink.sent(on: 1).map(decode) == [
            DecodedPDU(opcode: 0x1B, handle: 0x20, value: [UInt8(9_999 & 0xFF), UInt8(9_999 >> 8), 0x55]),
            DecodedPDU(opcode: 0x1B, handle: 0x21, value: [UInt8(9_997 & 0xFF), UInt8(9_997 >> 8), 0x55]),
            DecodedPDU(opcode: 0x1B, handle: 0x22, value: [UInt8(9_998 & 0xFF), UInt8(9_998 >> 8), 0x55]),
        ])
        let drained = try #require(engine.statistics()[connection: 1])
        #expect(drained.queuedEntries == 0 && drained.queuedBytes == 0)
        #expect(drained.counters.sent == 3)
    }

    @Test func mergeHookAccumulatesRRIntervals() throws {
        let sink = FakeSink(allowance: 0)
        let engine = NotificationEngine(sink: sink)
        try engine.addConnection(1, mtu: 247)
        let beats: [(UInt8, UInt16)] = [(60, 1000), (61, 990), (62, 970), (64, 940), (65, 920)]
        for (bpm, rr) in beats {
            #expect(engine.update(heartRateMeasurement(bpm: bpm, rrIntervals: [rr]), characteristic: 0x2A37,
                                  policy: .merge(mergeRRIntervals), to: 1))
        }
        sink.allow(.max, on: 1)
        engine.pump()
        let delivered = try sink.sent(on: 1).map(decode)
        #expect(delivered.count == 1)
        #expect(delivered.first?.value == heartRateMeasurement(bpm: 65, rrIntervals: [1000, 990, 970, 940, 920]))
        let counters = try #require(engine.statistics().characteristics[0x2A37])
        #expect(counters.enqueued == 5 && counters.merged == 4 && counters.sent == 1 && counters.coalesced == 0)
    }

    @Test func mergeThatDoesNotFitQueuesBehindAndLosesNothing() throws {
        let sink = FakeSink(allowance: 0)
        let engine = NotificationEngine(sink: sink)
        try engine.addConnection(1)   // MTU 23: 20-byte values hold the header and 9 RR-intervals
        let intervals = (0..<12).map { UInt16(800 + $0) }
        for rr in intervals {
            #expect(engine.update(heartRateMeasurement(bpm: 70, rrIntervals: [rr]), characteristic: 0x2A37,
                                  policy: .merge(mergeRRIntervals), to: 1))
        }
        sink.allow(.max, on: 1)
        engine.pump()
        let delivered = try sink.sent(on: 1).map(decode)
        #expect(delivered.map(\.value.count) == [20, 8])
        #expect(delivered.flatMap { rrIntervals(of: $0.value) } == intervals)
        #expect(engine.statistics()[connection: 1]?.counters.merged == 10)
    }
}

@Suite struct IndicationTests {
    @Test func fifoWithOneOutstandingUntilConfirmed() throws {
        let sink = FakeSink()
        let log = EventLog()
        let engine = NotificationEngine(sink: sink, onEvent: log.record)
        try engine.addConnection(1)
        for i in UInt8(0)..<4 {
            #expect(engine.update([i], characteristic: 0x30, policy: .indication, to: 1))
        }
        #expect(try sink.sent(on: 1).map(decode).map(\.value) == [[0]])
        #expect(engine.statistics()[connection: 1]?.indicationOutstanding == true)
        for confirmed in 1...3 {
            #expect(engine.confirmationReceived(on: 1))
            #expect(try sink.sent(on: 1).map(decode).map(\.value) == (0...confirmed).map { [UInt8($0)] })
        }
        #expect(engine.confirmationReceived(on: 1))
        #expect(!engine.confirmationReceived(on: 1))   // nothing outstanding any more
        #expect(log.all.filter { $0 == .indicationConfirmed(link: engine.link(1).id, characteristic: 0x30) }.count == 4)
        #expect(engine.statistics()[connection: 1]?.counters.confirmed == 4)
    }

    @Test func notificationsFlowWhileAnIndicationIsOutstanding() throws {
        let sink = FakeSink()
        let engine = NotificationEngine(sink: sink)
        try engine.addConnection(1)
        engine.update([1], characteristic: 0x30, policy: .indication, to: 1)
        engine.update([2], characteristic: 0x30, policy: .indication, to: 1)
        engine.update([3], characteristic: 0x40, to: 1)
        #expect(try sink.sent(on: 1).map(decode).map(\.opcode) == [0x1D, 0x1B])
    }

    @Test func fullQueueRefusesIndicationAndLosesNothing() throws {
        let sink = FakeSink(allowance: 0)
        let engine = NotificationEngine(sink: sink, defaultLimits: try limits(3))
        try engine.addConnection(1)
        for i in UInt8(0)..<3 { #expect(engine.update([i], characteristic: 0x30, policy: .indication, to: 1)) }
        #expect(!engine.update([3], characteristic: 0x30, policy: .indication, to: 1))
        sink.allow(.max, on: 1)
        engine.pump()
        while engine.confirmationReceived(on: 1) {}
        #expect(try sink.sent(on: 1).map(decode).map(\.value) == [[0], [1], [2]])
        let counters = try #require(engine.statistics()[connection: 1]?.counters)
        #expect(counters.enqueued == 3 && counters.sent == 3 && counters.rejected == 1 && counters.confirmed == 3)
    }
}

@Suite struct BackpressureTests {
    @Test func updateReturnsFalseThenReadyFiresOnce() throws {
        let sink = FakeSink(allowance: 0)
        let log = EventLog()
        let engine = NotificationEngine(sink: sink, defaultLimits: try limits(2), onEvent: log.record)
        try engine.addConnection(1)
        #expect(engine.update([1], characteristic: 0x30, policy: .merge(keepEveryValue), to: 1))
        #expect(engine.update([2], characteristic: 0x30, policy: .merge(keepEveryValue), to: 1))
        #expect(!engine.update([3], characteristic: 0x30, policy: .merge(keepEveryValue), to: 1))
        #expect(!engine.update([3], characteristic: 0x30, policy: .merge(keepEveryValue), to: 1))
        #expect(log.readyCount == 0)
        sink.allow(1, on: 1)
        engine.pump()
        #expect(log.readyCount == 1)
        #expect(engine.update([3], characteristic: 0x30, policy: .merge(keepEveryValue), to: 1))
        sink.allow(.max, on: 1)
        engine.pump()
        #expect(log.readyCount == 1)
        #expect(try sink.sent(on: 1).map(decode).map(\.value) == [[1], [2], [3]])
        #expect(engine.statistics()[connection: 1]?.counters.rejected == 2)
    }

    @Test func allOrNothingAcrossConnections() throws {
        let sink = FakeSink(allowance: 0)
        let engine = NotificationEngine(sink: sink, defaultLimits: try limits(1))
        try engine.addConnection(1)
        try engine.addConnection(2)
        #expect(engine.update([9], characteristic: 0x30, policy: .indication, to: 2))
        #expect(!engine.update([1], characteristic: 0x30, policy: .indication, to: [1, 2]))
        let statistics = engine.statistics()
        #expect(statistics[connection: 1]?.queuedEntries == 0)   // nothing partially applied
        #expect(statistics[connection: 1]?.counters.rejected == 0)
        #expect(statistics[connection: 2]?.counters.rejected == 1)
    }

    @Test func removingTheBlockingConnectionSignalsReady() throws {
        let sink = FakeSink(allowance: 0)
        let log = EventLog()
        let engine = NotificationEngine(sink: sink, defaultLimits: try limits(1), onEvent: log.record)
        try engine.addConnection(1)
        engine.update([1], characteristic: 0x30, policy: .indication, to: 1)
        #expect(!engine.update([2], characteristic: 0x30, policy: .indication, to: 1))
        engine.removeConnection(1)
        #expect(log.readyCount == 1)
    }

    @Test func asyncUpdateWaitsForRoom() async throws {
        let sink = FakeSink(allowance: 0)
        let engine = NotificationEngine(sink: sink, defaultLimits: try limits(1))
        try engine.addConnection(1)
        #expect(engine.update([1], characteristic: 0x30, policy: .merge(keepEveryValue), to: 1))
        let waiting = Task {
            try await engine.updateWaitingForRoom([2], characteristic: 0x30, policy: .merge(keepEveryValue), to: [UInt16(1)])
        }
        // Let the task reach its wait (it registers under the lock, so ordering is not required for correctness).
        while engine.statistics()[connection: 1]?.counters.rejected == 0 { await Task.yield() }
        sink.allow(.max, on: 1)
        engine.pump()
        try await waiting.value
        #expect(try sink.sent(on: 1).map(decode).map(\.value) == [[1], [2]])
    }

    @Test func cancelledAsyncUpdateQueuesNothing() async throws {
        let sink = FakeSink(allowance: 0)
        let engine = NotificationEngine(sink: sink, defaultLimits: try limits(1))
        try engine.addConnection(1)
        engine.update([1], characteristic: 0x30, policy: .merge(keepEveryValue), to: 1)
        let waiting = Task {
            try await engine.updateWaitingForRoom([2], characteristic: 0x30, policy: .merge(keepEveryValue), to: [UInt16(1)])
        }
        while engine.statistics()[connection: 1]?.counters.rejected == 0 { await Task.yield() }
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        sink.allow(.max, on: 1)
        engine.pump()
        #expect(try sink.sent(on: 1).map(decode).map(\.value) == [[1]])
    }

    @Test func stalledCentralDoesNotSlowAHealthyOne() throws {
        let sink = FakeSink()
        sink.allow(0, on: 1)   // central 1 never acknowledges
        let engine = NotificationEngine(sink: sink)
        try engine.addConnection(1)
        try engine.addConnection(2)
        for i in 0..<1_000 {
            #expect(engine.update([UInt8(i & 0xFF)], characteristic: 0x20, to: [1, 2]))
        }
        #expect(sink.sent(on: 2).count == 1_000)
        #expect(sink.sent(on: 1).isEmpty)
        let statistics = engine.statistics()
        #expect(statistics[connection: 1]?.queuedEntries == 1)
        #expect(statistics[connection: 1]?.counters.coalesced == 999)
        #expect(statistics[connection: 2]?.counters.sent == 1_000)
        // Refused once, then not retried until the sink signals: the stalled link costs no sink calls.
        #expect(sink.refusals == 1)
    }

    @Test func connectionsTakeTurns() throws {
        let sink = FakeSink(allowance: 0)
        let engine = NotificationEngine(sink: sink)
        try engine.addConnection(1)
        try engine.addConnection(2)
        for i in UInt8(0)..<3 {
            engine.update([i], characteristic: 0x30, policy: .merge(keepEveryValue), to: 1)
            engine.update([i], characteristic: 0x30, policy: .merge(keepEveryValue), to: 2)
        }
        sink.allow(.max, on: 1)
        sink.allow(.max, on: 2)
        engine.pump()
        let order = sink.order
        #expect(order.count == 6)
        #expect(zip(order, order.dropFirst()).allSatisfy { $0 != $1 })
    }
}

@Suite struct LifecycleTests {
    @Test func valuesAreTruncatedToMTUMinusThree() throws {
        let sink = FakeSink()
        let engine = NotificationEngine(sink: sink)
        try engine.addConnection(1)
        let value = (0..<30).map { UInt8($0) }
        engine.update(value, characteristic: 0x20, to: 1)
        engine.link(1).setMTU(100)  // an Exchange MTU: the engine reads it from the link
        engine.update(value, characteristic: 0x20, to: 1)
        let delivered = try sink.sent(on: 1).map(decode)
        #expect(delivered.map(\.value) == [Array(value[0..<20]), value])
        #expect(engine.statistics()[connection: 1]?.counters.truncated == 1)
    }

    @Test func differentMTUsPerConnection() throws {
        let sink = FakeSink()
        let engine = NotificationEngine(sink: sink)
        try engine.addConnection(1, mtu: 23)
        try engine.addConnection(2, mtu: 247)
        let value = [UInt8](repeating: 0x42, count: 244)
        engine.update(value, characteristic: 0x20, to: [1, 2])
        #expect(try sink.sent(on: 1).map(decode).first?.value.count == 20)
        #expect(try sink.sent(on: 2).map(decode).first?.value == value)
    }

    @Test func disconnectDropsQueuesAndReportsAbandonedIndications() throws {
        let sink = FakeSink()
        let log = EventLog()
        let engine = NotificationEngine(sink: sink, onEvent: log.record)
        try engine.addConnection(1)
        engine.update([1], characteristic: 0x30, policy: .indication, to: 1)   // sent, unconfirmed
        sink.allow(0, on: 1)
        engine.update([2], characteristic: 0x30, policy: .indication, to: 1)   // queued
        engine.update([3], characteristic: 0x20, to: 1)                         // queued notification
        let abandoned = engine.removeConnection(1)
        let expected = [AbandonedIndication(characteristic: 0x30, value: [1], wasSent: true),
                        AbandonedIndication(characteristic: 0x30, value: [2], wasSent: false)]
        #expect(abandoned == expected)
        #expect(log.all.contains(.indicationsAbandoned(link: engine.link(1).id, expected)))
        let statistics = engine.statistics()
        #expect(statistics[connection: 1] == nil)
        #expect(statistics.totals.dropped == 1 && statistics.totals.abandoned == 1 && statistics.totals.unconfirmed == 1)
        #expect(statistics.characteristics[0x30]?.abandoned == 1)
        // A late update to the gone handle is skipped; the handle can be reused with fresh state.
        #expect(engine.update([4], characteristic: 0x20, to: 1))
        #expect(!engine.confirmationReceived(on: 1))
        try engine.addConnection(1)
        #expect(engine.statistics()[connection: 1]?.counters == NotificationStatistics.Counters())
        #expect(engine.removeConnection(99).isEmpty)
    }

    @Test func removalDuringSendIsHarmless() throws {
        let sink = FakeSink()
        let engine = NotificationEngine(sink: sink)
        try engine.addConnection(1)
        try engine.addConnection(2)
        // The link drops (and the handle is immediately reused) while the sink holds the value.
        sink.duringSend.withLock { $0 = { connection in
            guard connection == 1 else { return }
            sink.duringSend.withLock { $0 = nil }
            engine.removeConnection(1)
            try? engine.addConnection(1)
        } }
        engine.update([7], characteristic: 0x20, to: [1, 2])
        let statistics = engine.statistics()
        #expect(statistics[connection: 1]?.counters == NotificationStatistics.Counters())
        #expect(statistics[connection: 2]?.counters.sent == 1)
        #expect(statistics.totals.dropped == 1)   // the value removal found queued
    }

    @Test func invalidInputGetsTypedErrors() throws {
        let engine = NotificationEngine(sink: FakeSink())
        try engine.addConnection(1)
        #expect(throws: NotificationEngineError.duplicateLink(engine.link(1).id)) { try engine.addLink(engine.link(1)) }
        #expect(throws: NotificationEngineError.invalidMTU(22)) { try engine.addConnection(2, mtu: 22) }
        #expect(throws: NotificationEngineError.invalidMTU(70_000)) { try engine.addConnection(3, mtu: 70_000) }
        #expect(throws: NotificationEngineError.invalidQueueLimits(entries: 0, bytes: 10)) {
            try QueueLimits(maximumEntries: 0, maximumBytes: 10)
        }
        #expect(NotificationEngineError.invalidMTU(22).description.contains("between 23"))
    }
}

@Suite struct CounterTests {
    @Test func countersAreExact() throws {
        let sink = FakeSink(allowance: 0)
        let engine = NotificationEngine(sink: sink, defaultLimits: try limits(4, 64))
        try engine.addConnection(1, mtu: 23)
        try engine.addConnection(2, mtu: 23)
        for i in UInt8(0)..<5 { engine.update([i], characteristic: 0x20, to: [1, 2]) }                 // 4 coalesced each
        engine.update([1], characteristic: 0x21, policy: .merge(keepEveryValue), to: 1)
        engine.update([2], characteristic: 0x21, policy: .merge(keepEveryValue), to: 1)
        engine.update([1, 2], characteristic: 0x21, policy: .merge({ q, n, _ in q + n }), to: 1)          // merged
        engine.update([UInt8](repeating: 1, count: 40), characteristic: 0x22, policy: .indication, to: 1) // truncated
        #expect(!engine.update([0], characteristic: 0x23, to: 1))                                          // 4 entries: full
        sink.allow(2, on: 1)
        engine.pump()

        let statistics = engine.statistics()
        let one = try #require(statistics[connection: 1])
        var expected = NotificationStatistics.Counters()
        expected.enqueued = 9
        expected.coalesced = 4
        expected.merged = 1
        expected.rejected = 1
        expected.truncated = 1
        expected.sent = 2
        expected.maximumDepth = 4
        #expect(one.counters == expected)
        #expect(one.queuedEntries == 2)
        #expect(one.queuedBytes == 1 + 3)   // 0x21: [1] and the merged [2, 1, 2]
        #expect(one.indicationOutstanding)
        #expect(one.counters.enqueued == one.counters.sent + one.counters.coalesced + one.counters.merged + Int64(one.queuedEntries))
        #expect(statistics[connection: 2]?.counters.enqueued == 5)
        #expect(statistics[connection: 2]?.counters.coalesced == 4)
        #expect(statistics.characteristics[0x20]?.enqueued == 10)
        #expect(statistics.characteristics[0x20]?.coalesced == 8)
        #expect(statistics.characteristics[0x21]?.maximumDepth == 2)
        #expect(statistics.characteristics[0x22]?.truncated == 1)
        #expect(statistics.totals.enqueued == 14)
    }
}
