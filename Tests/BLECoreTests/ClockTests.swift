import Synchronization
import Testing
@testable import BLECore

final class Fired: Sendable {
    let log = Mutex<[String]>([])
    func note(_ entry: String) { log.withLock { $0.append(entry) } }
    var all: [String] { log.withLock { $0 } }
}

@Suite struct ManualClockTests {
    @Test func timersFireInDeadlineOrderAtTheirDeadlines() {
        let clock = ManualClock(start: MonotonicInstant(nanoseconds: 0))
        let fired = Fired()
        clock.schedule(after: .seconds(3)) { fired.note("c at \(clock.now.nanoseconds / 1_000_000_000)") }
        clock.schedule(after: .seconds(1)) { fired.note("a at \(clock.now.nanoseconds / 1_000_000_000)") }
        clock.schedule(after: .seconds(1)) { fired.note("b at \(clock.now.nanoseconds / 1_000_000_000)") }
        #expect(clock.pendingTimers == 3)
        clock.advance(by: .milliseconds(999))
        #expect(fired.all.isEmpty)
        clock.advance(by: .seconds(5))
        // Equal deadlines fire in the order they were scheduled; `now` is each one's deadline.
        #expect(fired.all == ["a at 1", "b at 1", "c at 3"])
        #expect(clock.now == MonotonicInstant(nanoseconds: 5_999_000_000))
        #expect(clock.pendingTimers == 0)
    }

    @Test func cancelledTimersNeverFireAndTimersScheduledByAnActionFireInTheSameAdvance() {
        let clock = ManualClock()
        let fired = Fired()
        let cancelled = clock.schedule(after: .seconds(1)) { fired.note("cancelled") }
        clock.schedule(after: .seconds(2)) {
            fired.note("first")
            clock.schedule(after: .seconds(1)) { fired.note("chained") }
        }
        #expect(cancelled.cancel())
        #expect(!cancelled.cancel())
        clock.advance(by: .seconds(10))
        #expect(fired.all == ["first", "chained"])
    }

    @Test func aRepeatingTimerKeepsItsScheduleWithoutDrift() {
        let clock = ManualClock(start: MonotonicInstant(nanoseconds: 0))
        let ticks = Mutex<[(Int64, Int64)]>([])
        let timer = clock.repeating(every: .milliseconds(100)) { skipped in
            ticks.withLock { $0.append((clock.now.nanoseconds / 1_000_000, skipped)) }
        }
        clock.advance(by: .milliseconds(350))
        #expect(ticks.withLock { $0.map(\.0) } == [100, 200, 300])
        // Deadlines are whole periods from the first, whatever the steps the clock moves in.
        clock.advance(to: MonotonicInstant(nanoseconds: 650_000_000))
        #expect(ticks.withLock { $0.map(\.0) } == [100, 200, 300, 400, 500, 600])
        timer.cancel()
        clock.advance(by: .seconds(1))
        #expect(ticks.withLock { $0.count } == 6)
        #expect(clock.pendingTimers == 0)
    }

    @Test func leewayHandlesEveryTickDueByTheEndOfItInOneWakeUp() {
        let clock = ManualClock(start: MonotonicInstant(nanoseconds: 0))
        let ticks = Mutex<[(Int64, Int64)]>([])
        let timer = clock.repeating(every: .milliseconds(1), leeway: .milliseconds(5)) { skipped in
            ticks.withLock { $0.append((clock.now.nanoseconds / 1_000_000, skipped)) }
        }
        clock.advance(by: .milliseconds(5))
        #expect(ticks.withLock { $0.isEmpty })
        // The first deadline (1 ms) plus the leeway: ticks 1…6 in one call.
        clock.advance(by: .milliseconds(1))
        #expect(ticks.withLock { $0.map(\.0) } == [6])
        #expect(ticks.withLock { $0.map(\.1) } == [5])
        // The next deadline is 7 ms, woken at 12 ms: ticks 7…12.
        clock.advance(to: MonotonicInstant(nanoseconds: 12_000_000))
        #expect(ticks.withLock { $0.map(\.0) } == [6, 12])
        #expect(ticks.withLock { $0.map(\.1) } == [5, 5])
        timer.cancel()
        #expect(clock.pendingTimers == 0)
    }

    @Test func sleepResumesAtTheDeadlineAndCancellationEndsItAtOnce() async throws {
        let clock = ManualClock()
        let sleeper = Task { try await clock.sleep(for: .seconds(30)) }
        await clock.waitForTimers(atLeast: 1)
        clock.advance(by: .seconds(30))
        try await sleeper.value
        let cancelled = Task { try await clock.sleep(for: .seconds(30)) }
        await clock.waitForTimers(atLeast: 1)
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        #expect(clock.pendingTimers == 0)
    }
}

extension ManualClockTests {
    /// The barrier before advancing past a timer whose earlier neighbours come and go.
    @Test func waitUntilNextDeadlineReturnsOnceTheEarliestPendingTimerIsTheOneAskedFor() async {
        let clock = ManualClock()
        let target = clock.now + .seconds(5)
        let earlier = clock.schedule(after: .seconds(2)) {}
        let waiting = Task { await clock.waitUntilNextDeadline(is: target) }
        clock.schedule(at: target) {}
        // An earlier timer is still pending: the wait goes on until it is cancelled.
        earlier.cancel()
        await waiting.value
        #expect(clock.nextDeadline == target)
        // Already true: returns at once.
        await clock.waitUntilNextDeadline(is: target)
    }
}

@Suite struct SystemClockTests {
    @Test func timersFireOnTheMonotonicClockInOrder() async {
        let clock = SystemClock.shared
        let fired = Fired()
        let start = clock.now
        let done = AsyncStream.makeStream(of: Void.self)
        // Deadlines from one instant: relative to each call, a thread delayed between the calls
        // (under emulation it was, by over 20 ms) would make "late" the earlier deadline.
        clock.schedule(at: start + .milliseconds(30)) {
            fired.note("late")
            done.continuation.yield()
        }
        clock.schedule(at: start + .milliseconds(10)) { fired.note("early") }
        let never = clock.schedule(at: start + .milliseconds(20)) { fired.note("cancelled") }
        never.cancel()
        for await _ in done.stream { break }
        #expect(fired.all == ["early", "late"])
        #expect(clock.now - start >= .milliseconds(30))
    }

    @Test func durationsConvertWithoutOverflowOn32BitTargets() {
        #expect(Duration.seconds(5).saturatingNanoseconds == 5_000_000_000)
        #expect(Duration.seconds(Int64.max).saturatingNanoseconds == Int64.max)
        #expect((MonotonicInstant(nanoseconds: Int64.max - 1) + .seconds(10)).nanoseconds == Int64.max)
        #expect(MonotonicInstant(nanoseconds: 3_000_000_000) - MonotonicInstant(nanoseconds: 1_000_000_000) == .seconds(2))
    }
}
