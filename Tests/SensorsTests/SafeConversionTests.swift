import Testing
@testable import Sensors

/// Every Double → integer conversion reachable from user input, waveforms or hardware clamps instead
/// of trapping (each of these used to crash the process on NaN, ±infinity or out-of-range values).
@Suite struct SafeConversionTests {
    @Test func saturatingInit() {
        #expect(Int(saturating: .nan) == 0)
        #expect(Int(saturating: .infinity) == .max)
        #expect(Int(saturating: -.infinity) == .min)
        #expect(UInt64(saturating: 1e300) == .max)
        #expect(UInt64(saturating: -1) == 0)
        #expect(UInt16(saturating: 65535.9) == 65535)
        #expect(UInt16(saturating: 65536) == 65535)
        #expect(Int16(saturating: -2.7) == -2)
        #expect(UInt8(saturating: .nan, nan: 7) == 7)
        #expect(UInt64.max.saturatingAdd(1) == .max)
    }

    @Test(arguments: [Double.nan, .infinity, -.infinity, 1e300, -1e300])
    func publicHelpersDoNotTrap(value: Double) throws {
        let tmp = TMP102.raw(celsius: value, extendedMode: false)
        let tmpExtended = TMP102.raw(celsius: value, extendedMode: true)
        let mcp = MCP9808.raw(celsius: value)
        if value.isNaN {
            #expect(tmp == 0 && mcp == 0)
        } else if value > 0 {
            #expect(TMP102.celsius(raw: tmp) == 127.9375)
            #expect(TMP102.celsius(raw: tmpExtended) == 255.9375)
            #expect(MCP9808.celsius(raw: mcp) == 255.9375)
        } else {
            #expect(TMP102.celsius(raw: tmp) == -128)
            #expect(MCP9808.celsius(raw: mcp) == -256)
        }
        #expect(HeartRateReading(beatsPerMinute: value, rrIntervalsMilliseconds: [value], contact: .unsupported).rrIntervals1024.count == 1)
        #expect(BeatDetector.Beat(time: 0, rrMilliseconds: value).rr1024 != nil)

        let receiver = GPIOPulseReceiver(line: try SimulatedGPIOChip(lineNames: ["A"]).line(offset: 0), signalTimeoutSeconds: value)
        #expect((500_000_000...3_600_000_000_000).contains(receiver.signalTimeoutNanoseconds))

        let bus = SimulatedI2CBus()
        bus.attach(SimulatedMAX17048(cellVolts: value, percent: value), at: 0x36)
        let gauge = SimulatedMAX17048()
        gauge.set(cellVolts: value, percent: value, ratePercentPerHour: value)

        let tree = try SimulatedOneWireTree()
        try tree.setTemperature(id: "28-000001", celsius: value)

        let edges = PulseTrain(rrIntervalsMilliseconds: [value, 800], start: value).edges(originNanoseconds: .max - 5)
        #expect(edges.count == 6)
        #expect(edges.allSatisfy { $0.timestampNanoseconds <= .max })

        let ppg = SyntheticPPG(beatsPerMinute: value, duration: value.isNaN ? value : min(value, 5), rrVariability: value)
        _ = ppg.value(at: value)
        _ = ppg.value(at: 1)

        let clock = SimulatedSensorClock(startNanoseconds: 10)
        clock.sleep(milliseconds: value)
        clock.advance(milliseconds: value)
        clock.advance(nanoseconds: .max)
        #expect(clock.nowNanoseconds() == .max, "the clock saturates instead of wrapping to the past")

        var detector = BeatDetector(sampleRate: 100)
        _ = detector.process(value)
        _ = MAX3010x.Configuration.amplitudeCode(value)
    }

    @Test func syntheticPPGClampsItsParameters() {
        let negative = SyntheticPPG(beatsPerMinute: -60, duration: 2)
        #expect(negative.beatsPerMinute == 10)
        let huge = SyntheticPPG(beatsPerMinute: 72, duration: -4, rrVariability: 7)
        #expect(huge.duration == 0)
        #expect(huge.rrIntervalsMilliseconds.allSatisfy { $0 >= 833 * 0.5 - 1 && $0 <= 833 * 1.5 + 1 })
    }
}
