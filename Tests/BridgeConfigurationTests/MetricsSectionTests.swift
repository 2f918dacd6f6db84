import Testing
@testable import BridgeConfiguration

/// `metrics:`: off when absent, loopback by default, health data only by name.
@Suite struct MetricsSectionTests {
    static let base = """
        board: simulated
        sensors:
          - {name: room, driver: bme280, publish: [es-temperature, humidity, pressure]}
          - {name: body, driver: tmp102, publish: [temperature-measurement]}
          - {name: pulse, driver: max30102, publish: [heart-rate-measurement]}
          - {name: battery, driver: max17048, publish: [battery-level]}

        """

    @Test func absentMeansOff() throws {
        #expect(try load(Self.base).get().metrics == nil)
    }

    @Test func anEmptySectionListensOnLoopbackAndLeavesHealthSensorsOut() throws {
        let metrics = try #require(try load(Self.base + "metrics: {}").get().metrics)
        #expect(metrics.host == "127.0.0.1")
        #expect(metrics.port == MetricsSettings.defaultPort)
        #expect(metrics.sensors.names == ["room", "battery"])
    }

    @Test func healthSensorsAreExportedOnlyWhenListedByName() throws {
        let metrics = try #require(try load(Self.base + "metrics: {sensors: [room], health-sensors: [pulse]}").get().metrics)
        #expect(metrics.sensors.names == ["room", "pulse"])
        #expect(problems(Self.base + "metrics: {sensors: [room, body]}") == [
            "metrics.sensors (line 7): 'body' carries health data (heart rate, SpO2 or body temperature); to send it off the device, list it under health-sensors instead",
        ])
        #expect(problems(Self.base + "metrics: {health-sensors: [room]}") == [
            "metrics.health-sensors (line 7): 'room' carries no health data; list it under sensors",
        ])
    }

    @Test func unknownSensorsAndDuplicatesAreNamedWithTheirLine() {
        #expect(problems(Self.base + "metrics:\n  sensors: [rooom]\n") == [
            "metrics.sensors[0] (line 8): there is no sensor 'rooom'; did you mean 'room'?",
        ])
        #expect(problems(Self.base + "metrics: {sensors: [room, room]}") == ["metrics.sensors[1] (line 7): 'room' is listed twice"])
    }

    @Test func listenTakesIPv4AndBracketedIPv6Literals() throws {
        let any = try #require(try load(Self.base + "metrics: {listen: '0.0.0.0:9100'}").get().metrics)
        #expect(any.host == "0.0.0.0" && any.port == 9100)
        let loopback6 = try #require(try load(Self.base + "metrics: {listen: '[::1]:9879'}").get().metrics)
        #expect(loopback6.host == "::1" && loopback6.port == 9879)
        #expect(loopback6.listenDescription == "[::1]:9879")
        for bad in ["localhost:9879", "127.0.0.1", "127.0.0.1:0", "127.0.0.1:65536", "[::1:9879", "::1:9879", "1.2.3:80", "127.0.0.1:+80"] {
            #expect(MetricsSettings.parseListen(bad) == nil, "\(bad)")
        }
        #expect(problems(Self.base + "metrics: {listen: 'localhost:9879'}") == [
            "metrics.listen (line 7): 'localhost:9879' is not an address and port: write 127.0.0.1:9879, 0.0.0.0:9879 for every interface, or [::1]:9879",
        ])
    }

    @Test func aMisspeltKeyIsNamed() {
        #expect(problems(Self.base + "metrics: {lisen: '127.0.0.1:1'}") == [
            "metrics.lisen (line 7): unknown key 'lisen'; did you mean 'listen'?",
        ])
    }
}

/// Notification counts of a health characteristic say when the sensor is worn: withheld with the sensor.
@Suite struct WithheldCharacteristicsTests {
    @Test func healthCharacteristicsGoOnlyWithTheirSensor() throws {
        let configuration = try load(MetricsSectionTests.base + "metrics: {}").get()
        let metrics = try #require(configuration.metrics)
        #expect(metrics.sensors.withheldCharacteristics(of: configuration.sensors) == ["2A1C", "2A37"])
        let optedIn = try #require(try load(MetricsSectionTests.base + "metrics: {health-sensors: [pulse]}").get().metrics)
        #expect(optedIn.sensors.withheldCharacteristics(of: configuration.sensors) == ["2A1C"])
    }
}
