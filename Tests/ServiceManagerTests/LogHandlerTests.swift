import Logging
import Synchronization
import Testing
@testable import ServiceManager

/// Lines handed to the sink, in order (the sink is called synchronously by `log`).
final class LineStore: Sendable {
    private let lines = Mutex<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}

@Suite struct LogHandlerTests {
    /// 2026-11-23T23:45:01.123456789Z
    static let time = WallClockTime(secondsSinceEpoch: 1_795_477_501, nanoseconds: 123_456_789)

    func logger(_ format: LogLineFormat, label: String = "blesensord") -> (Logger, LineStore) {
        let store = LineStore()
        var logger = Logger(label: label) { label in
            JournalFriendlyLogHandler(label: label, format: format, clock: { Self.time }, sink: store.append)
        }
        logger.logLevel = .trace
        return (logger, store)
    }

    @Test func timestampedLine() {
        let (logger, store) = logger(.timestamped)
        logger.info("advertising", metadata: ["transport": "hci:0", "interval": "100ms"])
        #expect(store.all == ["2026-11-23T23:45:01.123Z info blesensord: advertising interval=100ms transport=hci:0"])
    }

    @Test func journalLineHasThePriorityPrefixAndNoTimestamp() {
        let (logger, store) = logger(.journal, label: "blesensor.hci")
        logger.warning("controller reset", metadata: ["reason": "timeout"])
        #expect(store.all == ["<4>blesensor.hci: controller reset reason=timeout"])
    }

    @Test func priorityOfEveryLevel() {
        let (logger, store) = logger(.journal)
        for level in Logger.Level.allCases { logger.log(level: level, "x") }
        #expect(store.all.map { String($0.prefix(3)) } == ["<7>", "<7>", "<6>", "<5>", "<4>", "<3>", "<2>"])
    }

    @Test(arguments: [LogLineFormat.journal, .timestamped])
    func embeddedNewlinesCannotForgeLines(format: LogLineFormat) {
        let (logger, store) = logger(format)
        logger.error("central named \"a\n<0>forged\r\" connected", metadata: ["name": "x\ny"])
        let line = store.all.joined()
        #expect(!line.contains("\n") && !line.contains("\r"))
        #expect(line.hasSuffix(#"central named "a\n<0>forged\r" connected name=x\ny"#))
    }

    @Test func backslashesAndControlCharactersAreEscapedUnambiguously() {
        #expect(LogLineFormatter.escaped(#"a\nb"#) == #"a\\nb"#)
        #expect(LogLineFormatter.escaped("bell\u{07}del\u{7F}tab\t") == #"bell\x07del\x7ftab\t"#)
        #expect(LogLineFormatter.escaped("plain ünïcode ✓") == "plain ünïcode ✓")
    }

    @Test func metadataValuesThatWouldNotSplitAreQuoted() {
        let (logger, store) = logger(.journal)
        logger.info("m", metadata: ["empty": "", "name": "Living Room", "quote": "say \"hi\"", "list": ["a", "b"]])
        #expect(store.all == [#"<6>blesensord: m empty="" list="[a, b]" name="Living Room" quote="say \"hi\"""#])
    }

    @Test func handlerProviderAndCallMetadataMergeWithTheCallWinning() {
        let store = LineStore()
        var logger = Logger(label: "d") { label in
            JournalFriendlyLogHandler(label: label, format: .journal,
                                      metadataProvider: .init { ["trace": "t1", "shared": "provider"] },
                                      clock: { Self.time }, sink: store.append)
        }
        logger[metadataKey: "shared"] = "handler"
        logger[metadataKey: "board"] = "pi4"
        logger.notice("n", metadata: ["shared": "call"])
        #expect(store.all == ["<5>d: n board=pi4 shared=call trace=t1"])
    }

    @Test func belowTheLevelNothingIsWritten() {
        let (base, store) = logger(.journal)
        var logger = base
        logger.logLevel = .notice
        logger.info("dropped")
        logger.notice("kept")
        #expect(store.all == ["<5>blesensord: kept"])
    }

    @Test(arguments: [
        (Int64(0), Int32(0), "1970-01-01T00:00:00.000Z"),
        (1_795_477_501, 999_999_999, "2026-11-23T23:45:01.999Z"),
        (951_782_400, 5_000_000, "2000-02-29T00:00:00.005Z"),
    ])
    func iso8601(seconds: Int64, nanoseconds: Int32, expected: String) {
        #expect(WallClockTime(secondsSinceEpoch: seconds, nanoseconds: nanoseconds).iso8601 == expected)
    }

    @Test func journalFormatOnlyWhenJournalStreamNamesStandardError() {
        let stderr = FileIdentity(device: 25, inode: 123_456)
        #expect(LogLineFormat.detect(environment: ["JOURNAL_STREAM": "25:123456"], standardError: stderr) == .journal)
        #expect(LogLineFormat.detect(environment: ["JOURNAL_STREAM": "25:999"], standardError: stderr) == .timestamped)
        #expect(LogLineFormat.detect(environment: ["JOURNAL_STREAM": "garbage"], standardError: stderr) == .timestamped)
        #expect(LogLineFormat.detect(environment: [:], standardError: stderr) == .timestamped)
        #expect(LogLineFormat.detect(environment: ["JOURNAL_STREAM": "25:123456"], standardError: nil) == .timestamped)
    }

    @Test func standardErrorIdentityIsReadable() throws {
        let identity = try #require(FileIdentity(descriptor: 2))
        let environment = ["JOURNAL_STREAM": "\(identity.device):\(identity.inode)"]
        #expect(LogLineFormat.detect(environment: environment) == .journal)
    }
}
