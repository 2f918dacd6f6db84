#if canImport(Glibc)
import Glibc
#endif
import BLECore
import Sensors
import Testing
import TestSupport
@testable import SensorBridge

@Suite struct SensorPollerTests {
    let clock = ManualClock()

    /// Advances to the poller's next deadline and waits for that read and the timer after it.
    func step(_ source: ScriptedSource, _ outcomes: Recorder<PollOutcome>, to deadline: MonotonicInstant) async {
        let before = outcomes.all.count
        clock.advance(to: deadline)
        await outcomes.wait(for: before + 1)
        await clock.waitForTimers(atLeast: 1)
    }

    @Test func readsAtOnceThenOnAGridThatDoesNotDriftAndSkipsMissedDeadlines() async {
        let source = ScriptedSource(clock: clock, [.success(Measurement(temperature: 20))])
        let outcomes = Recorder<PollOutcome>()
        let origin = clock.now
        let poller = SensorPoller(name: "room", source: source, interval: .seconds(1), clock: clock) { outcomes.append($0) }
        poller.start()
        await step(source, outcomes, to: origin)
        #expect(clock.nextDeadline == origin + .seconds(1))
        await step(source, outcomes, to: origin + .seconds(1))
        #expect(clock.nextDeadline == origin + .seconds(2))
        // A read that hung for 2.5 s (a stretched bus): the deadlines it missed are skipped, not
        // caught up in a burst, and the next read is back on the grid.
        source.duringRead.withLock { [clock] in $0 = { clock.advance(by: .milliseconds(2500)) } }
        await step(source, outcomes, to: origin + .seconds(2))
        #expect(outcomes.all.count == 3)
        #expect(clock.nextDeadline == origin + .seconds(5))
        #expect(SensorPoller.nextGridDeadline(origin: origin, interval: .seconds(1), after: origin + .seconds(7)) == origin + .seconds(8))
        poller.stop()
    }

    @Test func failuresBackOffExponentiallyAndRecoveryResumesTheInterval() async {
        let error = Fixtures.measurementError
        let source = ScriptedSource(clock: clock, [.failure(error), .failure(error), .failure(error), .success(Measurement(temperature: 21))])
        let outcomes = Recorder<PollOutcome>()
        let origin = clock.now
        let poller = SensorPoller(name: "room", source: source, interval: .seconds(1), clock: clock) { outcomes.append($0) }
        poller.start()
        await step(source, outcomes, to: origin)
        #expect(clock.nextDeadline == origin + .seconds(1))
        await step(source, outcomes, to: origin + .seconds(1))
        #expect(clock.nextDeadline == origin + .seconds(3))
        await step(source, outcomes, to: origin + .seconds(3))
        #expect(clock.nextDeadline == origin + .seconds(7))
        await step(source, outcomes, to: origin + .seconds(7))
        #expect(outcomes.all.last == .measured(Measurement(temperature: 21)))
        #expect(clock.nextDeadline == origin + .seconds(8))
        poller.stop()
    }

    @Test func backoffIsCappedAtThirtySecondsOrTheIntervalWhenLonger() {
        #expect(SensorPoller.backoff(interval: .seconds(1), failures: 1) == .seconds(1))
        #expect(SensorPoller.backoff(interval: .seconds(1), failures: 4) == .seconds(8))
        #expect(SensorPoller.backoff(interval: .seconds(1), failures: 50) == .seconds(30))
        #expect(SensorPoller.backoff(interval: .seconds(60), failures: 5) == .seconds(60))
    }

    @Test func noSignalIsAStateNotAFailureSoItDoesNotBackOff() async {
        let source = ScriptedSource(clock: clock, [.failure(.noSignal(sensor: "max30102", cause: .noHeartbeat(seconds: 3)))])
        let outcomes = Recorder<PollOutcome>()
        let origin = clock.now
        let poller = SensorPoller(name: "pulse", source: source, interval: .milliseconds(250), clock: clock) { outcomes.append($0) }
        poller.start()
        await step(source, outcomes, to: origin)
        await step(source, outcomes, to: origin + .milliseconds(250))
        #expect(outcomes.all == [.noSignal(.noHeartbeat(seconds: 3)), .noSignal(.noHeartbeat(seconds: 3))])
        #expect(clock.nextDeadline == origin + .milliseconds(500))
        poller.stop()
    }

    @Test func aHeaterCoolDownPausesWithoutBackingOff() async {
        let source = ScriptedSource(clock: clock, [.failure(.conditioning(sensor: "SHT4x", reason: "heater cool-down"))])
        let outcomes = Recorder<PollOutcome>()
        let origin = clock.now
        let poller = SensorPoller(name: "cellar", source: source, interval: .seconds(1), clock: clock) { outcomes.append($0) }
        poller.start()
        await step(source, outcomes, to: origin)
        await step(source, outcomes, to: origin + .seconds(1))
        #expect(outcomes.all == [.paused("heater cool-down"), .paused("heater cool-down")])
        #expect(clock.nextDeadline == origin + .seconds(2))
        poller.stop()
    }

    @Test func aNewIntervalRestartsTheGridFromNow() async {
        let source = ScriptedSource(clock: clock, [.success(Measurement(temperature: 36.8))])
        let outcomes = Recorder<PollOutcome>()
        let origin = clock.now
        let poller = SensorPoller(name: "body", source: source, interval: .seconds(10), clock: clock) { outcomes.append($0) }
        poller.start()
        await step(source, outcomes, to: origin)
        clock.advance(to: origin + .seconds(3))
        poller.setInterval(.seconds(2))
        await step(source, outcomes, to: origin + .seconds(3))
        #expect(clock.nextDeadline == origin + .seconds(5))
        #expect(poller.interval == .seconds(2))
        poller.stop()
    }

    @Test func stopClosesTheSourceAndCancelsTheTimer() async {
        let source = ScriptedSource(clock: clock, [.success(Measurement(temperature: 20))])
        let outcomes = Recorder<PollOutcome>()
        let poller = SensorPoller(name: "room", source: source, interval: .seconds(1), clock: clock) { outcomes.append($0) }
        poller.start()
        await step(source, outcomes, to: clock.now)
        poller.stop()
        #expect(clock.pendingTimers == 0)
        await source.readTimes.wait(for: 1)
        // The close job runs on the sensor thread after any read in progress.
        while !source.closed.withLock({ $0 }) { await Task.yield() }
        #expect(source.closed.withLock { $0 })
    }
}

/// Runs a timer that is already due inside `schedule` and returns only once the poller has armed
/// the next one: the order in which a due first deadline can play out on the real clock.
private final class DueFirstClock: HostClock {
    let base = ManualClock()
    var now: MonotonicInstant { base.now }

    @discardableResult
    func schedule(at deadline: MonotonicInstant, _ action: @escaping @Sendable () -> Void) -> TimerHandle {
        guard deadline <= base.now else { return base.schedule(at: deadline, action) }
        let handle = base.schedule(at: deadline, action)
        base.advance(by: .zero)
        while base.pendingTimers == 0 { sched_yield() }
        return handle
    }
}

@Suite struct SensorPollerOrderingTests {
    @Test func aFirstDeadlineThatFiresBeforeItIsStoredDoesNotCancelItsSuccessor() async throws {
        let clock = DueFirstClock()
        let source = ScriptedSource(clock: clock, [.success(Measurement(temperature: 20))])
        let outcomes = Recorder<PollOutcome>()
        let origin = clock.now
        let poller = SensorPoller(name: "room", source: source, interval: .seconds(1), clock: clock) { outcomes.append($0) }
        poller.start(origin: origin)
        await outcomes.wait(for: 1)
        defer { poller.stop() }
        // Without its successor the poller would never read again (and the wait below never end).
        try #require(clock.base.pendingTimers == 1)
        #expect(clock.base.nextDeadline == origin + .seconds(1))
        clock.base.advance(to: origin + .seconds(1))
        await outcomes.wait(for: 2)
    }
}
