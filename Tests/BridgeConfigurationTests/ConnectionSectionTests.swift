import BLECore
import Testing
@testable import BridgeConfiguration

/// `connection:`: what the daemon asks centrals for, checked against the spec and Apple's rules.
@Suite struct ConnectionSectionTests {
    static let base = "board: simulated\nsensors: [{name: a, driver: tmp102}]\n"

    @Test func withoutTheSectionTheStandardParametersAreAskedAfterFiveSeconds() throws {
        let configuration = try load(Self.base).get()
        #expect(configuration.connection == .standard)
        #expect(configuration.connection.preferred == .standard)
        #expect(configuration.connection.requestAfter == .seconds(5))
    }

    @Test func everyKeyIsRead() throws {
        let configuration = try load(Self.base + """
            connection:
              interval-min: 45ms
              interval-max: 75ms
              latency: 2
              supervision-timeout: 4s
              request-after: 10s
              silent-timeout: 2m
            """).get()
        #expect(configuration.connection.preferred == PreferredConnectionParameters(
            intervalMin: .milliseconds(45), intervalMax: .milliseconds(75), latency: 2, supervisionTimeout: .seconds(4)))
        #expect(configuration.connection.requestAfter == .seconds(10))
        #expect(configuration.connection.silentTimeout == .seconds(120))
        #expect(try load(Self.base).get().connection.silentTimeout == .seconds(60))
        #expect(problems(Self.base + "connection: {silent-timeout: 1h}") == ["connection.silent-timeout (line 3): 1h is out of range 0s…10m"])
    }

    @Test func requestsCanBeTurnedOff() throws {
        let configuration = try load(Self.base + "connection: {request-parameters: false}").get()
        #expect(configuration.connection.preferred == nil)
    }

    @Test func parametersIOSWouldRefuseAreAConfigurationError() {
        #expect(problems(Self.base + "connection: {interval-min: 20ms, supervision-timeout: 420ms}") == [
            "connection (line 3): these parameters cannot be asked for: the Core spec says the supervision timeout must exceed (1 + latency) × maximum interval × 2",
            "connection (line 3): these parameters cannot be asked for: iOS refuses it: the minimum interval is at least 15 ms and a multiple of 15 ms (Apple's accessory rules)",
            "connection (line 3): these parameters cannot be asked for: iOS refuses it: the supervision timeout is 2 s … 6 s (Apple's accessory rules)",
            "connection (line 3): these parameters cannot be asked for: iOS refuses it: maximum interval × (latency + 1) × 3 is below the supervision timeout (Apple's accessory rules)",
        ])
        #expect(problems(Self.base + "connection: {latency: 500, request-after: 2m, speed: fast}").count == 3)
    }

    @Test func theShippedFileAsksForTheStandardParameters() throws {
        let configuration = try ConfigurationLoader.load(path: repositoryRoot + "/systemd/blesensor.yaml", boardsDirectories: [repositoryBoards],
                                                          environment: [:], boardDetection: .assuming(model: "Raspberry Pi 4 Model B Rev 1.4")).get()
        #expect(configuration.connection == .standard)
    }
}

/// `advertising:` fast phase (Apple's discovery guidance).
@Suite struct FastAdvertisingSettingsTests {
    @Test func theDefaultIsTwentyMillisecondsForThirtySecondsThenOneFiftyTwoAndAHalf() throws {
        let advertising = try load(ConnectionSectionTests.base).get().advertising
        #expect(advertising.fastInterval == .milliseconds(20) && advertising.fastPeriod == .seconds(30))
        #expect(advertising.interval == .microseconds(152_500))
    }

    @Test func theFastPhaseIsConfigurableAndChecked() throws {
        let advertising = try load(ConnectionSectionTests.base + "advertising: {fast-interval: 30ms, fast-period: 0s}").get().advertising
        #expect(advertising.fastInterval == .milliseconds(30) && advertising.fastPeriod == .zero)
        #expect(problems(ConnectionSectionTests.base + "advertising: {fast-interval: 10ms, fast-period: 2h}") == [
            "advertising.fast-interval (line 3): 10ms is out of range 20ms…10.24s",
            "advertising.fast-period (line 3): 2h is out of range 0s…1h",
        ])
    }
}

/// `advertising: tx-power-level` (Apple's discovery guidance includes it).
@Suite struct TxPowerLevelSettingTests {
    @Test func itIsOnByDefaultAndCanBeTurnedOff() throws {
        #expect(try load(ConnectionSectionTests.base).get().advertising.txPowerLevel)
        #expect(try !load(ConnectionSectionTests.base + "advertising: {tx-power-level: false}").get().advertising.txPowerLevel)
        #expect(problems(ConnectionSectionTests.base + "advertising: {tx-power-level: loud}").count == 1)
    }
}
