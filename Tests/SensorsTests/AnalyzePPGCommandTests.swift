import Testing
@testable import SensorCommands
@testable import Sensors

@Suite struct AnalyzePPGCommandTests {
    @Test func samplesOnePerLineWithBlankLinesAllowed() throws {
        #expect(try AnalyzePPGCommand.samples(from: "1\n 2.5 \n\n-3e2\n") == [1, 2.5, -300])
        #expect(throws: SensorCommandError.usage("line 2: 'hr' is not a sample value (one number per line)")) {
            try AnalyzePPGCommand.samples(from: "1\nhr\n")
        }
        #expect(throws: SensorCommandError.usage("line 1: 'nan' is not a sample value (one number per line)")) {
            try AnalyzePPGCommand.samples(from: "nan")
        }
    }

    @Test func beatsOfASyntheticRecording() throws {
        // 72 BPM without variability: RR 833.3 ms.
        let ppg = SyntheticPPG(beatsPerMinute: 72, duration: 20, rrVariability: 0)
        let samples = (0..<2000).map { ppg.value(at: Double($0) / 100) }
        let command = try AnalyzePPGCommand.parse(["--rate", "100", "-"])
        let lines = try command.analyze(samples).split(separator: "\n")
        let summary = try #require(lines.last)
        #expect(summary.hasPrefix("# samples 2000 beats "))
        let bpm = try #require(summary.split(separator: " ").last.flatMap { Double($0) })
        #expect(abs(bpm - 72) < 1)
        // Flipped and with no DC level, --pulse-up finds the same beats.
        let flipped = try AnalyzePPGCommand.parse(["--rate", "100", "--pulse-up", "-"])
        #expect(try flipped.analyze(samples.map { ppg.dc - $0 }).split(separator: "\n").count == lines.count)
    }

    @Test func badRate() throws {
        let command = try AnalyzePPGCommand.parse(["--rate", "0", "-"])
        #expect(throws: SensorCommandError.usage("--rate must be 1 ... 1000 Hz, got 0.0")) { try command.analyze([1, 2]) }
    }
}
