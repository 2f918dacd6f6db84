import Testing
@testable import ServiceManager

@Suite struct WatchdogSettingsTests {
    static let pid: Int32 = 4242

    @Test(arguments: [
        ([String: String](), nil),
        (["WATCHDOG_USEC": "30000000"], Duration.seconds(30)),
        (["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "4242"], .seconds(30)),
        (["WATCHDOG_USEC": "1"], .microseconds(1)),
        (["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "4243"], nil),
        (["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "abc"], nil),
        (["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "0"], nil),
        (["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "99999999999"], nil),
        (["WATCHDOG_USEC": "0"], nil),
        (["WATCHDOG_USEC": ""], nil),
        (["WATCHDOG_USEC": "garbage"], nil),
        (["WATCHDOG_USEC": "-30000000"], nil),
        (["WATCHDOG_USEC": " 30000000"], nil),
        (["WATCHDOG_USEC": "30s"], nil),
        (["WATCHDOG_USEC": "0x10"], nil),
        (["WATCHDOG_USEC": "18446744073709551615"], nil),  // systemd's USEC_INFINITY
        (["WATCHDOG_USEC": "9223372036854775808"], nil),   // past Int64.max
        (["WATCHDOG_USEC": "99999999999999999999999"], nil),  // past UInt64.max
        (["WATCHDOG_USEC": "31622400000001"], nil),        // a microsecond over the maximum
        (["WATCHDOG_USEC": "31622400000000"], .seconds(366 * 24 * 3600)),
    ] as [([String: String], Duration?)])
    func parses(environment: [String: String], expected: Duration?) {
        #expect(WatchdogSettings.from(environment: environment, processID: Self.pid)?.interval == expected)
    }

    @Test func pingsAtHalfTheInterval() throws {
        let settings = try #require(WatchdogSettings.from(environment: ["WATCHDOG_USEC": "30000000"], processID: Self.pid))
        #expect(settings.pingInterval == .seconds(15))
    }

    @Test func readingSaysWhyThereIsNoWatchdog() {
        #expect(WatchdogSettings.read(environment: [:], processID: Self.pid) == .disabled)
        #expect(WatchdogSettings.read(environment: ["WATCHDOG_USEC": "5", "WATCHDOG_PID": "7"], processID: Self.pid) == .otherProcess(7))
        #expect(WatchdogSettings.read(environment: ["WATCHDOG_USEC": "0"], processID: Self.pid)
            == .invalid(variable: "WATCHDOG_USEC", value: "0", reason: "zero"))
    }
}
