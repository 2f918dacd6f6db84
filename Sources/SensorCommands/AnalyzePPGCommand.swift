import ArgumentParser
import Foundation
import Sensors

/// `blesensor sensor analyze-ppg --rate HZ FILE`: runs the MAX3010x beat detector on a recorded PPG
/// (one sample per line, `-` for standard input) and prints each beat's time and RR-interval, so the
/// detector can be checked against recordings and other detectors (Tests/Interop/bench_heartpy.py).
public struct AnalyzePPGCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "analyze-ppg",
        abstract: "Find heart beats in a recorded PPG: prints 'TIME_S RR_MS' per beat ('-' when the interval was rejected).",
        shouldDisplay: false
    )

    @Option(help: "Sample rate of the recording in Hz (1 ... 1000).")
    public var rate: Double

    @Flag(help: "Systole is a maximum of the recording (transmissive or amplified sensors); MAX3010x counts dip instead.")
    public var pulseUp = false

    @Option(help: "Minimum level meaning a finger is on the sensor (MAX3010x counts); ignored with --pulse-up.")
    public var fingerThreshold: Double = 30_000

    @Argument(help: "File with one sample per line, or - for standard input.")
    public var file: String

    public init() {}

    public func run() throws {
        do {
            let text: String
            if file == "-" {
                text = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
            } else {
                guard let data = FileManager.default.contents(atPath: file) else {
                    throw SensorCommandError.usage("cannot read '\(file)': no such file or not readable")
                }
                text = String(decoding: data, as: UTF8.self)
            }
            print(try analyze(try Self.samples(from: text)), terminator: "")
        } catch let error as SensorCommandError {
            FileHandle.standardError.write(Data("error: \(error.description)\n".utf8))
            throw ExitCode(error.exitCode)
        }
    }

    /// The numbers of `text`, one per non-empty line.
    static func samples(from text: String) throws(SensorCommandError) -> [Double] {
        var values: [Double] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
            if trimmed.isEmpty { continue }
            guard let value = Double(trimmed), value.isFinite else {
                throw .usage("line \(index + 1): '\(trimmed.prefix(40))' is not a sample value (one number per line)")
            }
            values.append(value)
        }
        return values
    }

    /// One line per beat, then a summary line starting with '#'.
    func analyze(_ samples: [Double]) throws(SensorCommandError) -> String {
        guard rate.isFinite, rate >= 1, rate <= 1000 else { throw .usage("--rate must be 1 ... 1000 Hz, got \(rate)") }
        guard fingerThreshold.isFinite else { throw .usage("--finger-threshold must be a number") }
        // Flipped, a recording whose pulse points up looks like MAX3010x counts; its level then says
        // nothing about contact, so the check is off.
        var detector = BeatDetector(sampleRate: rate, fingerThreshold: pulseUp ? -.infinity : fingerThreshold)
        var lines: [String] = []
        var intervals: [Double] = []
        for sample in samples {
            guard let beat = detector.process(pulseUp ? -sample : sample) else { continue }
            if let rr = beat.rrMilliseconds { intervals.append(rr) }
            lines.append(String(format: "%.4f ", beat.time) + (beat.rrMilliseconds.map { String(format: "%.1f", $0) } ?? "-"))
        }
        let bpm = intervals.isEmpty ? "-" : String(format: "%.2f", 60_000 / (intervals.reduce(0, +) / Double(intervals.count)))
        lines.append("# samples \(samples.count) beats \(lines.count) accepted-intervals \(intervals.count) mean-bpm \(bpm)")
        return lines.joined(separator: "\n") + "\n"
    }
}
