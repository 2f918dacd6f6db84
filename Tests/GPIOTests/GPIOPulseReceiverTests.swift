import Testing
@testable import Sensors

@Suite struct GPIOPulseReceiverTests {
    @Test func rrIntervalsFromEdges() throws {
        let clock = SimulatedSensorClock()
        let chip = SimulatedGPIOChip(lineNames: ["GPIO0", "HR_IN"])
        let line = try chip.simulatedLine(offset: 1)
        let receiver = GPIOPulseReceiver(line: try chip.line(named: "HR_IN"), clock: clock)
        try receiver.start()
        #expect(line.isMonitored)
        #expect(line.requestedBias == .pullDown)
        let rr: [Double] = [800, 820, 790, 810, 805, 795]
        let origin = clock.nowNanoseconds()
        var edges = PulseTrain(rrIntervalsMilliseconds: rr, start: 0.1).edges(originNanoseconds: origin)
        // A glitch 40 ms after a beat must be ignored.
        edges.insert(GPIOEdgeEvent(edge: .rising, timestampNanoseconds: edges[4].timestampNanoseconds + 40_000_000), at: 5)
        line.emit(edges)
        clock.advance(milliseconds: 5_000)
        let reading = try receiver.reading()
        #expect(reading.rrIntervalsMilliseconds.count == rr.count)
        for (measured, expected) in zip(reading.rrIntervalsMilliseconds, rr) { #expect(abs(measured - expected) < 0.001) }
        #expect(abs((reading.beatsPerMinute ?? 0) - 60_000 / (rr.reduce(0, +) / 6)) < 0.01)
        #expect(reading.rrIntervals1024 == rr.map { UInt16(($0 * 1.024).rounded()) })
        // Drained: the next reading has no new intervals.
        #expect(try receiver.reading().rrIntervalsMilliseconds.isEmpty)
        receiver.stop()
        #expect(!line.isMonitored)
    }

    @Test func signalLossAndLineFailure() throws {
        let clock = SimulatedSensorClock()
        let chip = SimulatedGPIOChip(lineNames: ["GPIO0"])
        let line = try chip.simulatedLine(offset: 0)
        let receiver = GPIOPulseReceiver(line: line, clock: clock)
        try receiver.start()
        line.emit(PulseTrain(rrIntervalsMilliseconds: [1000, 1000], start: 0).edges(originNanoseconds: clock.nowNanoseconds()))
        clock.advance(milliseconds: 6_000)
        #expect(throws: SensorError.self) { try receiver.reading() }
        // A 3-second gap is not an RR-interval.
        line.emit(PulseTrain(rrIntervalsMilliseconds: [700], start: 0).edges(originNanoseconds: clock.nowNanoseconds()))
        clock.advance(milliseconds: 800)
        #expect(try receiver.reading().rrIntervalsMilliseconds == [700])
        line.fail(.monitorFailed(chip: "gpiochip0", offset: 0, errno: 19))
        #expect(throws: SensorError.gpio(.monitorFailed(chip: "gpiochip0", offset: 0, errno: 19))) { try receiver.reading() }
        #expect(throws: GPIOError.lineNotFound(chip: "gpiochip0", line: "NOPE")) { try chip.line(named: "NOPE") }
    }

    @Test func linuxChipErrorsAreTyped() {
        #expect(throws: GPIOError.chipNotFound("gpiochip97")) { try LinuxGPIOChip(name: "gpiochip97") }
    }
}
