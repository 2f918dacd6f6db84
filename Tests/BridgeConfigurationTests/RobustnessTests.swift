import BLECore
import TestSupport
import Testing
@testable import BridgeConfiguration

/// Whatever the input, the loader returns; these only check it does and says something sensible.
@Suite struct RobustnessTests {
    private func sensorProblems(_ fields: String) -> [String] {
        problems("board: simulated\nsensors:\n  - {name: a, driver: tmp102, \(fields)}")
    }

    @Test func extremeNumbersAreRangeProblems() {
        #expect(sensorProblems("poll-interval: 99999999999999999999s") == ["sensors[0].poll-interval (line 3): 99999999999999999999s is too long"])
        #expect(sensorProblems("poll-interval: 1e400s") == ["sensors[0].poll-interval (line 3): '1e400s' is not a duration like 500ms, 2s, 1m or 1h"])
        #expect(sensorProblems("poll-interval: -5s") == ["sensors[0].poll-interval (line 3): -5s is negative; durations are 0 or more"])
        #expect(sensorProblems("poll-interval: .nan") == ["sensors[0].poll-interval (line 3): '.nan' is not a duration like 500ms, 2s, 1m or 1h"])
        #expect(sensorProblems("calibration-offset: .nan") == ["sensors[0].calibration-offset (line 3): .nan is not a number"])
        #expect(sensorProblems("calibration-offset: -.inf") == ["sensors[0].calibration-offset (line 3): -.inf is not a number"])
        #expect(sensorProblems("address: 0x99999999999999999999") == ["sensors[0].address (line 3): 0x99999999999999999999 is outside the 7-bit I2C address range (use 0x03…0x77, e.g. 0x48)"])
        #expect(sensorProblems("address: -72") == ["sensors[0].address (line 3): -72 is outside the 7-bit I2C address range (use 0x03…0x77, e.g. 0x48)"])
        #expect(problems("board: simulated\nappearance: 99999999999999999999999\nsensors: [{name: a, driver: tmp102}]")
            == ["appearance (line 2): 99999999999999999999999 is out of range 0…65535"])
    }

    @Test func durationsParseTheirUnits() throws {
        #expect(try parseDuration("500ms").get() == .milliseconds(500))
        #expect(try parseDuration("1.5s").get() == .milliseconds(1500))
        #expect(try parseDuration("1m").get() == .seconds(60))
        #expect(try parseDuration("1h").get() == .seconds(3600))
        #expect(try parseDuration("0.1s").get() == .milliseconds(100))
        for bad in ["", "s", "ms", "1 s", "1sec", "+1s", "0x10s", "1..2s", "inf s", "nan"] {
            #expect(throws: DurationProblem.self) { try parseDuration(bad).get() }
        }
        #expect(formatDuration(.milliseconds(10_240)) == "10.24s")
        #expect(formatDuration(.milliseconds(250)) == "250ms")
        #expect(formatDuration(.seconds(3600)) == "1h")
    }

    @Test func deepNestingAndAliasBombsReturn() {
        let deep = "board: simulated\nsensors: " + String(repeating: "[", count: 5000) + String(repeating: "]", count: 5000)
        #expect(problems(deep).count == 1)
        let blockDeep = "board: simulated\nsensors:\n" + (0..<2000).map { String(repeating: " ", count: $0 + 2) + "- \n" }.joined()
        #expect(!problems(blockDeep).isEmpty)
        // Aliases are shared, not copied, and nothing walks deeper than the schema.
        var laughs = "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
        for level in 1..<12 { laughs += "l\(level): &l\(level) [" + Array(repeating: "*\(level == 1 ? "a" : "l\(level - 1)")", count: 10).joined(separator: ", ") + "]\n" }
        #expect(problems(laughs).count > 1)
    }

    @Test func randomBytesNeverTrap() {
        var generator = SplitMix64(seed: 0x5EED)
        let alphabet = Array("board: simulated\nsensors:\n - {}[],:&*!|>'\"%@`#-?~0x48 ms\t\u{0}é\u{FEFF}")
        for round in 0..<400 {
            let length = Int(generator.next() % 200)
            let text: String
            if round % 2 == 0 {
                text = String((0..<length).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] })
            } else {
                let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
                text = String(decoding: bytes, as: UTF8.self)
            }
            _ = load(text)
        }
    }

    @Test func unreadableFilesAreOneProblem() {
        let result = ConfigurationLoader.load(path: "/proc/self/mem", boardsDirectories: [], environment: [:])
        guard case let .failure(problems) = result else {
            Issue.record("/proc/self/mem loaded")
            return
        }
        #expect(problems.problems.count == 1)
        #expect(problems.problems[0].message.contains("/proc/self/mem"))
    }
}
