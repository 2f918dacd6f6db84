import BTHome
import Testing

/// At most one packet a second, a new one only when the values changed, and a keep-alive a minute after the last.
@Suite struct BTHomeScheduleTests {
    @Test func changesGoOutAtMostOnceASecondAndUnchangedValuesAreKept() {
        var schedule = BTHomeSchedule()
        #expect(schedule.decide([1], now: .seconds(5)) == .send)
        schedule.sent([1], at: .seconds(5))
        // The same values: nothing new, whether within the second or after it.
        #expect(schedule.decide([1], now: .milliseconds(5_100)) == .keep)
        #expect(schedule.decide([1], now: .seconds(30)) == .keep)
        // New values within the second wait for its end.
        #expect(schedule.decide([2], now: .milliseconds(5_100)) == .wait(until: .seconds(6)))
        #expect(schedule.decide([2], now: .seconds(6)) == .send)
        schedule.sent([2], at: .seconds(6))
        // Nothing changed for a minute: the same values again (a new packet id and counter).
        #expect(schedule.decide([2], now: .milliseconds(65_999)) == .keep)
        #expect(schedule.decide([2], now: .seconds(66)) == .send)
    }
}
