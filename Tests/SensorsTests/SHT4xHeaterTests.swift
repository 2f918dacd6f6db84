import Testing
@testable import Sensors

/// The SHT4x heater (datasheet 4.9): the six pulse commands, the wait for the pulse, and the
/// schedule that never lets the hot die pass for the room.
@Suite struct SHT4xHeaterTests {
    let clock = SimulatedSensorClock()
    let bus = SimulatedI2CBus()

    func attachChip(celsius: Double = 22, humidity: Double = 85) -> SimulatedSHT4x {
        let chip = SimulatedSHT4x(celsius: celsius, relativeHumidity: humidity, clock: clock)
        bus.attach(chip, at: 0x44)
        return chip
    }

    @Test func eachPowerAndLengthHasTheDatasheetCommand() {
        let table: [(SHT4x.HeaterPower, SHT4x.HeaterDuration, UInt8)] = [
            (.milliwatts200, .seconds1, 0x39), (.milliwatts200, .milliseconds100, 0x32),
            (.milliwatts110, .seconds1, 0x2F), (.milliwatts110, .milliseconds100, 0x24),
            (.milliwatts20, .seconds1, 0x1E), (.milliwatts20, .milliseconds100, 0x15),
        ]
        for (power, duration, command) in table {
            #expect(SHT4x.HeaterPulse(power: power, duration: duration).command.rawValue == command)
        }
        // 10 % duty: a pulse at most every ten of the longest pulse (1.1 s, 0.11 s).
        #expect(SHT4x.HeaterPulse(power: .milliwatts20, duration: .seconds1).minimumPeriod == .seconds(11))
        #expect(SHT4x.HeaterPulse(power: .milliwatts200, duration: .milliseconds100).minimumPeriod == .milliseconds(1100))
    }

    @Test func aPulseWaitsItsLongestLengthAndReturnsTheHotDie() throws {
        let chip = attachChip()
        let start = clock.nowNanoseconds()
        let hot = try SHT4x(bus: bus, clock: clock).heat(.init(power: .milliwatts200, duration: .seconds1))
        // The chip NACKs reads for the whole pulse, so reading back proves the driver waited it out.
        #expect(clock.nowNanoseconds() - start == 1_100_000_000)
        #expect(chip.heaterPulses == [.init(power: .milliwatts200, duration: .seconds1)])
        #expect(hot.celsius > 60)
        #expect(hot.relativeHumidity < 20)
    }

    @Test func aReadDuringThePulseIsRefusedByTheChip() throws {
        _ = attachChip()
        try bus.writeByte(address: 0x44, value: SHT4x.Command.heat110mW100ms.rawValue)
        clock.advance(milliseconds: 50)
        #expect(throws: SensorBusError.self) { try bus.read(address: 0x44, count: 6) }
    }

    func cycle(every: Duration, coolDown: Duration = .seconds(10), memory: SHT4xHeaterCycle.Memory = .init()) -> SHT4xHeaterCycle {
        SHT4xHeaterCycle(chip: SHT4x(bus: bus, clock: clock),
                         schedule: .init(pulse: .init(power: .milliwatts200, duration: .seconds1), every: every, coolDown: coolDown),
                         clock: clock, memory: memory)
    }

    @Test func theDieStaysHotForAWhileAfterAPulse() throws {
        // What makes a skipped cool-down visible: the simulated die reads hot for a second after the pulse.
        _ = attachChip()
        let sensor = SHT4x(bus: bus, clock: clock)
        _ = try sensor.heat(.init(power: .milliwatts200, duration: .seconds1))
        clock.advance(milliseconds: 500)
        #expect(try sensor.read().celsius > 60)
        clock.advance(milliseconds: 1_000)
        #expect(abs(try sensor.read().celsius - 22) < 0.01)
    }

    @Test func aCycleRecreatedAfterAFailedPulseStillCoolsDown() throws {
        // The bridge reopens a source after a bus error; the schedule's memory outlives it.
        let chip = attachChip()
        let memory = SHT4xHeaterCycle.Memory()
        let first = cycle(every: .seconds(20), memory: memory)
        _ = try first.read()
        clock.advance(milliseconds: 20_000)
        chip.corruptCRC(true)
        #expect(throws: SensorError.self) { try first.read() }
        chip.corruptCRC(false)
        let reopened = cycle(every: .seconds(20), memory: memory)
        clock.advance(milliseconds: 400)
        #expect(conditioningReason(reopened.read)?.hasPrefix("heater cool-down") == true)
        clock.advance(milliseconds: 10_000)
        #expect(abs(try reopened.read().celsius - 22) < 0.01)
        #expect(chip.heaterPulses.count == 1)
    }

    /// One poll as a letter: A ambient, P pulse, c cool-down.
    func poll(_ heater: SHT4xHeaterCycle) throws(SensorError) -> Character {
        do {
            _ = try heater.read()
            return "A"
        } catch {
            guard case let .conditioning(_, reason) = error else { throw error }
            return reason.hasPrefix("heater pulse") ? "P" : "c"
        }
    }

    @Test func pollsAsSlowAsThePeriodStillGetAmbientReadingsBetweenPulses() throws {
        // Poll every 1 s with a pulse due every 12 s and a 10 s cool-down (a pulse poll takes 1.1 s):
        // the pulse waits for an ambient reading instead of following the cool-down at once.
        _ = attachChip()
        let heater = cycle(every: .seconds(12))
        let start = clock.nowNanoseconds()
        var outcomes = ""
        for second in 0..<120 {
            clock.advance(nanoseconds: start + UInt64(second) * 1_000_000_000 - min(clock.nowNanoseconds(), start + UInt64(second) * 1_000_000_000))
            outcomes.append(try poll(heater))
        }
        #expect(outcomes.contains("P"))
        #expect(!outcomes.contains("PP") && !outcomes.contains("cP"), "a pulse right after a pulse or a cool-down: \(outcomes)")
        #expect(outcomes.filter { $0 == "A" }.count >= outcomes.filter { $0 == "P" }.count, "\(outcomes)")
    }

    func conditioningReason(_ body: () throws(SensorError) -> TemperatureHumidityReading) -> String? {
        do {
            let reading = try body()
            Issue.record("read \(reading) while the heater cycle should withhold it")
            return nil
        } catch {
            guard case let .conditioning(sensor: "SHT4x", reason) = error else {
                Issue.record("got \(error)")
                return nil
            }
            return reason
        }
    }

    @Test func pulsesOnScheduleAndWithholdsReadingsUntilTheDieHasCooled() throws {
        let chip = attachChip()
        let heater = cycle(every: .seconds(60))
        // First poll: the room; no pulse before one period has passed.
        #expect(try heater.read().celsius.isApproximatelyEqual(to: 22, tolerance: 0.01))
        clock.advance(milliseconds: 59_000)
        #expect(try heater.read().relativeHumidity.isApproximatelyEqual(to: 85, tolerance: 0.01))
        #expect(chip.heaterPulses.isEmpty)

        clock.advance(milliseconds: 1_000)
        let pulseAt = clock.nowNanoseconds()
        let pulse = conditioningReason(heater.read)
        #expect(pulse?.hasPrefix("heater pulse (200 mW for 1 s): the die read 72.0 °C") == true, "\(pulse ?? "")")
        #expect(pulse?.hasSuffix("not the ambient values; ambient readings resume in 10.0 s") == true, "\(pulse ?? "")")
        #expect(chip.heaterPulses.count == 1)

        // The pulse ended 1.1 s after the poll; 2 s later 8 s of cool-down remain.
        clock.advance(milliseconds: 2_000)
        #expect(conditioningReason(heater.read) == "heater cool-down; ambient readings resume in 8.0 s")
        clock.advance(milliseconds: 7_999)
        #expect(conditioningReason(heater.read) == "heater cool-down; ambient readings resume in 0.0 s")
        clock.advance(milliseconds: 1)
        #expect(try heater.read().celsius.isApproximatelyEqual(to: 22, tolerance: 0.01))

        // The next pulse is one period after the poll that ran the previous one (each ambient read
        // also moves the clock by its 8.3 ms measurement wait).
        clock.advance(nanoseconds: pulseAt + 60_000_000_000 - 1_000_000 - clock.nowNanoseconds())
        _ = try heater.read()
        #expect(chip.heaterPulses.count == 1)
        // That read's own 8.3 ms took the clock past the period.
        #expect(clock.nowNanoseconds() >= pulseAt + 60_000_000_000)
        _ = conditioningReason(heater.read)
        #expect(chip.heaterPulses.count == 2)
    }

    @Test func aPulseThatFailsOnTheBusStillCountsForTheDutyLimitAndTheCoolDown() throws {
        let chip = attachChip()
        let heater = cycle(every: .seconds(10), coolDown: .seconds(3))
        _ = try heater.read()
        clock.advance(milliseconds: 10_000)
        chip.corruptCRC(true)
        #expect(throws: SensorError.self) { try heater.read() }
        chip.corruptCRC(false)
        #expect(chip.heaterPulses.count == 1)
        // It may have heated: the cool-down still applies, and the retry does not pulse again.
        clock.advance(milliseconds: 1_000)
        #expect(conditioningReason(heater.read)?.hasPrefix("heater cool-down") == true)
        clock.advance(milliseconds: 2_000)
        _ = try heater.read()
        #expect(chip.heaterPulses.count == 1)
    }

    @Test func heaterOnTimeStaysWithinTenPercentOverAnHourOfFastPolls() throws {
        let chip = attachChip()
        let heater = SHT4xHeaterCycle(chip: SHT4x(bus: bus, clock: clock),
                                      schedule: .init(pulse: .init(power: .milliwatts110, duration: .milliseconds100),
                                                      every: .milliseconds(1100), coolDown: .zero),
                                      clock: clock)
        let start = clock.nowNanoseconds()
        while clock.nowNanoseconds() - start < 3_600_000_000_000 {
            _ = try? heater.read()
            clock.advance(milliseconds: 100)
        }
        let elapsed = Double(clock.nowNanoseconds() - start) / 1e9
        // Counted at the longest pulse the driver allows (0.11 s).
        let onTime = Double(chip.heaterPulses.count) * 0.11
        #expect(onTime <= elapsed * 0.1)
        #expect(chip.heaterPulses.count > 3_000)
    }

    @Test func pollsSlowerThanThePeriodAlternateAmbientReadingsAndPulses() throws {
        // A central's Measurement Interval write can space polls 30 s apart on a 12 s period: every
        // pulse is due at its poll, yet each one still follows an ambient reading.
        _ = attachChip()
        let heater = cycle(every: .seconds(12))
        var outcomes = ""
        for _ in 0..<8 {
            outcomes.append(try poll(heater))
            clock.advance(milliseconds: 30_000)
        }
        #expect(outcomes == "APAPAPAP")
    }
}

extension Double {
    fileprivate func isApproximatelyEqual(to other: Double, tolerance: Double) -> Bool { abs(self - other) <= tolerance }
}
