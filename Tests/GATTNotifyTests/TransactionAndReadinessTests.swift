import BLECore
import HCI
import Synchronization
import Testing
@testable import GATTNotify

@Suite struct IndicationTransactionTimerTests {
    @Test func anUnconfirmedIndicationTimesOutAfterThirtySecondsOfVirtualTime() throws {
        let clock = ManualClock()
        let log = EventLog()
        let engine = NotificationEngine(sink: FakeSink(), clock: clock, onEvent: log.record)
        try engine.addConnection(1)
        try engine.addConnection(2)
        #expect(engine.update([0x01], characteristic: 0x30, policy: .indication, to: [1, 2]))
        // The timer starts when the indication is handed to the sink, one per link.
        #expect(clock.pendingTimers == 2)
        clock.advance(by: .seconds(20))
        #expect(engine.confirmationReceived(on: 2))
        // Confirmed: that link's timer is gone.
        #expect(clock.pendingTimers == 1)
        clock.advance(by: .milliseconds(9_999))
        #expect(!log.all.contains { if case .indicationTimedOut = $0 { return true } else { return false } })
        clock.advance(by: .milliseconds(1))
        #expect(log.all.contains(.indicationTimedOut(engine.link(1))))
        #expect(!log.all.contains(.indicationTimedOut(engine.link(2))))
        #expect(clock.pendingTimers == 0)
    }

    @Test func aConfirmationThatArrivesWhileTheSinkStillHasTheIndicationCompletesIt() throws {
        let clock = ManualClock()
        let sink = FakeSink()
        let engine = NotificationEngine(sink: sink, clock: clock)
        try engine.addConnection(1)
        // A quick central: the transport writes on the sending thread and the confirmation is
        // processed on the reader thread before trySend has returned.
        let answers = Mutex<[Bool]>([])
        sink.duringSend.withLock {
            $0 = { [weak engine] handle in
                let confirmed = engine?.confirmationReceived(on: handle) ?? false
                answers.withLock { $0.append(confirmed) }
            }
        }
        #expect(engine.update([0x01], characteristic: 0x30, policy: .indication, to: 1))
        #expect(engine.update([0x02], characteristic: 0x30, policy: .indication, to: 1))
        // Each was confirmed during its own send: the second was not held behind the first, and
        // no transaction timer waits for a confirmation that already came.
        #expect(sink.sent(on: 1).count == 2)
        #expect(answers.withLock { $0 } == [true, true])
        #expect(clock.pendingTimers == 0)
        #expect(engine.statistics()[connection: 1]?.counters.confirmed == 2)
        sink.duringSend.withLock { $0 = nil }
        #expect(!engine.confirmationReceived(on: 1))
    }

    @Test func theTimerRestartsForTheNextIndicationAndStopsWhenTheLinkCloses() throws {
        let clock = ManualClock()
        let log = EventLog()
        let engine = NotificationEngine(sink: FakeSink(), clock: clock, onEvent: log.record)
        try engine.addConnection(1)
        #expect(engine.update([0x01], characteristic: 0x30, policy: .indication, to: 1))
        #expect(engine.update([0x02], characteristic: 0x30, policy: .indication, to: 1))
        clock.advance(by: .seconds(25))
        #expect(engine.confirmationReceived(on: 1))
        // The second indication went now; its own 30 s start here.
        clock.advance(by: .seconds(25))
        #expect(!log.all.contains { if case .indicationTimedOut = $0 { return true } else { return false } })
        engine.removeConnection(1)
        #expect(clock.pendingTimers == 0)
        clock.advance(by: .seconds(60))
        #expect(!log.all.contains { if case .indicationTimedOut = $0 { return true } else { return false } })
    }
}

@Suite struct AtomicUpdateTests {
    @Test func notifyAndIndicateRecipientsTakeAnUpdateTogetherOrNotAtAll() throws {
        let sink = FakeSink(allowance: 0)
        let engine = NotificationEngine(sink: sink, defaultLimits: try limits(2))
        try engine.addConnection(1)   // notified
        try engine.addConnection(2)   // indicated
        let notified = [engine.link(1).id], indicated = [engine.link(2).id]
        #expect(engine.update([0x01], characteristic: 0x30, notifying: notified, policy: .fifo, indicating: indicated))
        #expect(engine.update([0x02], characteristic: 0x30, notifying: notified, policy: .fifo, indicating: indicated))
        // Both queues are full now: the third is refused for both, and nothing is half queued.
        #expect(!engine.update([0x03], characteristic: 0x30, notifying: notified, policy: .fifo, indicating: indicated))
        let statistics = engine.statistics()
        #expect(statistics[connection: 1]?.counters.enqueued == 2)
        #expect(statistics[connection: 2]?.counters.enqueued == 2)
        // Link 1 drains; link 2 (never confirming) stays full and still holds the update back for both.
        sink.allow(.max, on: 1)
        engine.pump()
        #expect(engine.linksWithRoom(among: notified + indicated, characteristic: 0x30, policy: .fifo, length: 1) == notified)
        #expect(!engine.update([0x04], characteristic: 0x30, notifying: notified, policy: .fifo, indicating: indicated))
        #expect(engine.statistics()[connection: 1]?.counters.enqueued == 2)
    }

    @Test func fifoNotificationsKeepEveryValueAndRefuseWhenFull() throws {
        let sink = FakeSink(allowance: 0)
        let engine = NotificationEngine(sink: sink, defaultLimits: try limits(3))
        try engine.addConnection(1)
        for value in UInt8(0)..<3 { #expect(engine.update([value], characteristic: 0x30, policy: .fifo, to: 1)) }
        #expect(!engine.update([3], characteristic: 0x30, policy: .fifo, to: 1))
        sink.allow(.max, on: 1)
        engine.pump()
        #expect(try sink.sent(on: 1).map(decode).map(\.value) == [[0], [1], [2]])
        #expect(engine.statistics()[connection: 1]?.counters.coalesced == 0)
    }
}

@Suite struct PerLinkReadinessTests {
    @Test func readyNamesTheLinksThatCanBeUpdatedWhileAStalledOneStaysFull() throws {
        let sink = FakeSink(allowance: 0)
        let log = EventLog()
        let engine = NotificationEngine(sink: sink, defaultLimits: try limits(2), onEvent: log.record)
        try engine.addConnection(1)   // stalls
        try engine.addConnection(2)
        sink.allow(.max, on: 2)
        while engine.update([0x01], characteristic: 0x30, policy: .indication, to: [1, 2]) {
            #expect(engine.confirmationReceived(on: 2))
        }
        // Link 2 always had room; link 1 is full. Link 2 can be updated alone.
        #expect(engine.linksWithRoom(among: [engine.link(1).id, engine.link(2).id], characteristic: 0x30,
                                     policy: .indication, length: 1) == [engine.link(2).id])
        #expect(engine.update([0x02], characteristic: 0x30, policy: .indication, to: 2))
        #expect(log.readyCount == 0)
        // Link 1 recovers: ready, naming every link that can be updated now.
        sink.allow(.max, on: 1)
        engine.pump()
        while engine.confirmationReceived(on: 1) {}
        #expect(log.readyCount == 1)
        #expect(Set(log.readyLinks) == [engine.link(1).id, engine.link(2).id])
    }

    @Test func aRefusingLinkThatClosesReleasesTheOthers() throws {
        let sink = FakeSink(allowance: 0)
        let log = EventLog()
        let engine = NotificationEngine(sink: sink, defaultLimits: try limits(1), onEvent: log.record)
        try engine.addConnection(1)
        try engine.addConnection(2)
        sink.allow(.max, on: 2)
        #expect(engine.update([1], characteristic: 0x30, policy: .fifo, to: [1, 2]))
        #expect(!engine.update([2], characteristic: 0x30, policy: .fifo, to: [1, 2]))
        engine.removeConnection(1)
        #expect(log.readyCount == 1)
        #expect(log.readyLinks == [engine.link(2).id])
    }
}

@Suite struct PurgeTests {
    @Test func purgingDiscardsQueuedValuesOfOneCharacteristicOnOneLink() throws {
        let sink = FakeSink(allowance: 0)
        let log = EventLog()
        let engine = NotificationEngine(sink: sink, onEvent: log.record)
        try engine.addConnection(1)
        try engine.addConnection(2)
        for value in UInt8(0)..<3 {
            engine.update([value], characteristic: 0x30, policy: .fifo, to: [1, 2])
            engine.update([0x10 + value], characteristic: 0x40, policy: .fifo, to: [1, 2])
        }
        engine.update([0xA0], characteristic: 0x30, policy: .indication, to: 1)
        engine.purge(characteristic: 0x30, on: engine.link(1).id)
        // Everything of 0x30 on link 1 went, the queued indication reported; 0x40 and link 2 untouched.
        #expect(log.all.contains(.indicationsAbandoned(link: engine.link(1).id, [AbandonedIndication(characteristic: 0x30, value: [0xA0], wasSent: false)])))
        sink.allow(.max, on: 1)
        sink.allow(.max, on: 2)
        engine.pump()
        #expect(try sink.sent(on: 1).map(decode).map(\.handle) == [0x40, 0x40, 0x40])
        #expect(try sink.sent(on: 2).map(decode).map(\.value) == [[0], [0x10], [1], [0x11], [2], [0x12]])
        let counters = try #require(engine.statistics()[connection: 1]?.counters)
        #expect(counters.purged == 4)
        #expect(counters.enqueued == counters.sent + counters.purged)
        // A value queued after the purge coalesces as usual (the bookkeeping survived the compaction).
        sink.allow(0, on: 1)
        engine.update([0x07], characteristic: 0x30, to: 1)
        engine.update([0x08], characteristic: 0x30, to: 1)
        #expect(engine.statistics()[connection: 1]?.queuedEntries == 1)
    }

    @Test func aPurgeLeavesOtherCharacteristicsCoalescingIntoTheirOwnValues() throws {
        let sink = FakeSink(allowance: 0)
        let engine = NotificationEngine(sink: sink)
        try engine.addConnection(1)
        engine.update([0x01], characteristic: 0x30, policy: .fifo, to: 1)
        engine.update([0x02], characteristic: 0x40, policy: .fifo, to: 1)
        // 0x40's value moves down into the place 0x30's left.
        engine.purge(characteristic: 0x30, on: engine.link(1).id)
        engine.update([0x03], characteristic: 0x50, policy: .fifo, to: 1)
        // Replaces 0x40's queued value, not whatever now sits where it used to be.
        engine.update([0x04], characteristic: 0x40, to: 1)
        sink.allow(.max, on: 1)
        engine.pump()
        let sent = try sink.sent(on: 1).map(decode)
        #expect(sent.map(\.handle) == [0x40, 0x50])
        #expect(sent.map(\.value) == [[0x04], [0x03]])
    }

    @Test func purgingEverywhereForARemovedCharacteristic() throws {
        let sink = FakeSink(allowance: 0)
        let engine = NotificationEngine(sink: sink)
        try engine.addConnection(1)
        try engine.addConnection(2)
        engine.update([0x01], characteristic: 0x30, to: [1, 2])
        engine.purge(characteristic: 0x30)
        #expect(engine.statistics()[connection: 1]?.queuedEntries == 0)
        #expect(engine.statistics()[connection: 2]?.queuedEntries == 0)
    }
}
