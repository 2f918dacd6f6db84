import Testing
@testable import MetricsExporter

@Suite struct ProcessMetricsTests {
    /// A command name with spaces and parentheses: fields are counted after the last ')'.
    static let stat = "1234 (blesensord (x) y) S 1 1234 1234 0 -1 4194560 500 0 0 0 250 50 0 0 20 0 9 0 1000 123456789 4000 "
        + "18446744073709551615 1 1 0 0 0 0 0 4096 0 0 0 0 17 1 0 0 0 0 0 0 0 0 0 0 0 0 0\n"

    @Test func cpuMemoryAndStartTimeComeFromTheirFields() throws {
        let reading = try #require(ProcessMetrics.parse(selfStat: Self.stat, ticksPerSecond: 100, pageSize: 4096, bootTime: 1_700_000_000))
        #expect(reading.cpuSeconds == 3)
        #expect(reading.virtualBytes == 123_456_789)
        #expect(reading.residentBytes == 4000 * 4096)
        #expect(reading.startTimeSeconds == 1_700_000_010)
    }

    @Test func malformedInputGivesNothing() {
        for text in ["", "1234 (x", "1234 (x) S 1 2", String(repeating: ")", count: 100), Self.stat.replacing("250", with: "-250"),
                     Self.stat.replacing("250", with: "nan")] {
            #expect(ProcessMetrics.parse(selfStat: text, ticksPerSecond: 100, pageSize: 4096, bootTime: 0) == nil, "\(text)")
        }
        #expect(ProcessMetrics.parse(selfStat: Self.stat, ticksPerSecond: 0, pageSize: 4096, bootTime: 0) == nil)
    }

    /// From the clocks, since the packaged unit hides /proc/stat: within a second of its btime here.
    @Test func bootTimeComesFromTheClocksAndAgreesWithProcStat() throws {
        let text = try #require(ProcessMetrics.readFile("/proc/stat"))
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("btime ") })
        let btime = try #require(Double(line.dropFirst(6)))
        #expect(abs(ProcessMetrics.bootTime() - btime) <= 1)
    }

    @Test func thisProcessCanBeRead() throws {
        let reading = try #require(ProcessMetrics.current())
        #expect(reading.residentBytes > 0)
        #expect(reading.openDescriptors.map { $0 > 0 } == true)
        #expect(reading.startTimeSeconds > 1_600_000_000)
    }
}
