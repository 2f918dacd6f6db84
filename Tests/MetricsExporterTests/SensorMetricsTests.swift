import BridgeConfiguration
import ControlSocket
import Testing
@testable import MetricsExporter

/// What a scrape exposes for the daemon's state: names, units, and no value for a sensor that
/// does not read.
@Suite struct SensorMetricsTests {
    static func sensor(_ name: String, driver: String, state: SensorStatus.State, readings: [(String, Double)],
                       reads: Int64 = 10, failures: Int64 = 0) -> SensorStatus {
        SensorStatus(name: name, driver: driver, value: readings.first?.1, unit: "", ageSeconds: state == .failed ? 7 : 0.5, state: state,
                     error: state == .failed ? "no answer at 0x77" : nil,
                     readings: readings.map { QuantityReading(quantity: $0.0, value: $0.1, unit: "") }, reads: reads, failures: failures)
    }

    static let room = sensor("room", driver: "bme280", state: .ok, readings: [("temperature", 21.5), ("humidity", 45), ("pressure", 101_325)])
    static let pulse = sensor("pulse", driver: "max30102", state: .ok, readings: [("heart-rate", 72)])
    static let battery = sensor("battery", driver: "max17048", state: .ok, readings: [("battery-level", 87)])

    static func input(_ sensors: [SensorStatus], exporters: [ExporterStatus]? = nil) -> MetricsInput {
        let snapshot = StatusSnapshot(transport: "virtual", address: "C0:11:22:33:44:55", advertising: true, uptimeSeconds: 5, board: "simulated",
                                      deviceName: "blesensor", centrals: [], sensors: sensors, bonds: ["AA:BB:CC:DD:EE:FF (public)"],
                                      exporters: exporters)
        return MetricsInput(snapshot: snapshot, notificationsSent: ["2A6E": 4, "2A37": 9], process: nil, wallClockSeconds: 1_800_000_000)
    }

    static func samples(_ families: [MetricFamily], _ name: String) -> [String: Double] {
        families.first { $0.name == name }?.samples.reduce(into: [:]) { result, sample in
            result[sample.labels.map { "\($0.0)=\($0.1)" }.joined(separator: ",")] = sample.value
        } ?? [:]
    }

    @Test func valuesAreInBaseUnitsAndRatios() {
        let families = SensorMetrics.families(Self.input([Self.room, Self.battery]), exported: ExportedSensors(names: ["room", "battery"]), version: "0.8.0")
        #expect(Self.samples(families, "blesensor_temperature_celsius") == ["sensor=room,driver=bme280": 21.5])
        #expect(Self.samples(families, "blesensor_humidity_ratio") == ["sensor=room,driver=bme280": 0.45])
        #expect(Self.samples(families, "blesensor_pressure_pascals") == ["sensor=room,driver=bme280": 101_325])
        #expect(Self.samples(families, "blesensor_battery_level_ratio") == ["sensor=battery,driver=max17048": 0.87])
        #expect(Self.samples(families, "blesensor_sensor_up") == ["sensor=room,driver=bme280": 1, "sensor=battery,driver=max17048": 1])
        #expect(Self.samples(families, "blesensor_notifications_sent_total") == ["characteristic=2A37": 9, "characteristic=2A6E": 4])
        #expect(Self.samples(families, "blesensor_build_info") == ["version=0.8.0": 1])
        #expect(Self.samples(families, "blesensor_bonds") == ["": 1])
        #expect(Self.samples(families, "blesensor_sensor_last_reading_timestamp_seconds")["sensor=room,driver=bme280"] == 1_799_999_999.5)
        // Every family the daemon produces is in the published list the dashboard is checked against.
        for family in families { #expect(SensorMetrics.familyNames.contains(family.name), "\(family.name)") }
    }

    /// Status shows a `unit: fahrenheit` sensor in °F; the metric stays in °C.
    @Test func aTemperatureShownInFahrenheitIsExportedInCelsius() {
        let fahrenheit = SensorStatus(name: "attic", driver: "tmp102", value: 98.6, unit: "°F", ageSeconds: 0, state: .ok, error: nil,
                                      readings: [QuantityReading(quantity: "temperature", value: 98.6, unit: "°F")], reads: 1, failures: 0)
        let families = SensorMetrics.families(Self.input([fahrenheit]), exported: ExportedSensors(names: ["attic"]), version: "1")
        let celsius = Self.samples(families, "blesensor_temperature_celsius")["sensor=attic,driver=tmp102"]
        #expect(celsius.map { abs($0 - 37) < 1e-9 } == true, "\(String(describing: celsius))")
    }

    @Test func aFailedSensorHasNoValueSeriesAndIsDown() {
        let failed = Self.sensor("room", driver: "bme280", state: .failed, readings: [("temperature", 21.5)], reads: 3, failures: 4)
        let families = SensorMetrics.families(Self.input([failed, Self.battery]), exported: ExportedSensors(names: ["room", "battery"]), version: "1")
        #expect(Self.samples(families, "blesensor_temperature_celsius").isEmpty)
        #expect(!families.contains { $0.name == "blesensor_temperature_celsius" })
        #expect(Self.samples(families, "blesensor_sensor_up")["sensor=room,driver=bme280"] == 0)
        #expect(Self.samples(families, "blesensor_sensor_read_failures_total")["sensor=room,driver=bme280"] == 4)
        #expect(Self.samples(families, "blesensor_sensor_last_reading_timestamp_seconds")["sensor=room,driver=bme280"] == nil)
        #expect(Self.samples(families, "blesensor_battery_level_ratio") == ["sensor=battery,driver=max17048": 0.87])
    }

    @Test func aSensorNotSelectedIsNotExposedAtAll() {
        let families = SensorMetrics.families(Self.input([Self.room, Self.pulse]), exported: ExportedSensors(names: ["room"]), version: "1")
        #expect(!families.contains { $0.name == "blesensor_heart_rate_beats_per_minute" })
        #expect(families.allSatisfy { family in family.samples.allSatisfy { !$0.labels.contains { $0.1 == "pulse" } } })
        let optedIn = SensorMetrics.families(Self.input([Self.room, Self.pulse]), exported: ExportedSensors(names: ["room", "pulse"]), version: "1")
        #expect(Self.samples(optedIn, "blesensor_heart_rate_beats_per_minute") == ["sensor=pulse,driver=max30102": 72])
    }

    @Test func noSignalIsUpWithoutAValueAndStartingIsDown() {
        let silent = Self.sensor("pulse", driver: "max30102", state: .noSignal, readings: [])
        let starting = Self.sensor("room", driver: "bme280", state: .starting, readings: [])
        let families = SensorMetrics.families(Self.input([silent, starting]), exported: ExportedSensors(names: ["pulse", "room"]), version: "1")
        #expect(Self.samples(families, "blesensor_sensor_up") == ["sensor=pulse,driver=max30102": 1, "sensor=room,driver=bme280": 0])
        #expect(!families.contains { $0.name == "blesensor_heart_rate_beats_per_minute" })
    }

    @Test func exportersShowUpAndTheirCounters() {
        let exporters = [ExporterStatus(name: "mqtt", state: .connecting, endpoint: "mqtt://x", sent: 5, dropped: 2),
                         ExporterStatus(name: "metrics", state: .running, endpoint: "http://x", sent: 3)]
        let families = SensorMetrics.families(Self.input([], exporters: exporters), exported: ExportedSensors(names: []), version: "1")
        #expect(Self.samples(families, "blesensor_exporter_up") == ["exporter=mqtt": 0, "exporter=metrics": 1])
        #expect(Self.samples(families, "blesensor_exporter_messages_dropped_total") == ["exporter=mqtt": 2, "exporter=metrics": 0])
    }

    @Test func theTextFormatHasHelpTypeAndEverySample() {
        let families = SensorMetrics.families(Self.input([Self.room]), exported: ExportedSensors(names: ["room"]), version: "0.8.0")
        let text = String(decoding: ExpositionFormat.prometheusText.render(families), as: UTF8.self)
        #expect(text.contains("# TYPE blesensor_temperature_celsius gauge\n"))
        #expect(text.contains("# HELP blesensor_pressure_pascals Air pressure in pascals.\n"))
        #expect(text.contains("blesensor_temperature_celsius{sensor=\"room\",driver=\"bme280\"} 21.5\n"))
        #expect(text.contains("# TYPE blesensor_sensor_read_failures_total counter\n"))
        #expect(!text.contains("# EOF"))
    }

    @Test func openMetricsNamesFamiliesWithoutSuffixesAndEnds() {
        let families = SensorMetrics.families(Self.input([Self.room]), exported: ExportedSensors(names: ["room"]), version: "0.8.0")
        let text = String(decoding: ExpositionFormat.openMetrics.render(families), as: UTF8.self)
        #expect(text.hasSuffix("# EOF\n"))
        #expect(text.contains("# TYPE blesensor_sensor_read_failures counter\n# HELP blesensor_sensor_read_failures Failed reads since start.\n"
                              + "blesensor_sensor_read_failures_total{sensor=\"room\",driver=\"bme280\"} 0\n"))
        #expect(text.contains("# TYPE blesensor_build info\n"))
        #expect(text.contains("blesensor_build_info{version=\"0.8.0\"} 1\n"))
        #expect(text.contains("blesensor_humidity_ratio{sensor=\"room\",driver=\"bme280\"} 0.45\n"))
    }

    @Test func labelValuesAreEscaped() {
        #expect(ExpositionFormat.escapeLabel("a\"b\\c\nd") == "a\\\"b\\\\c\\nd")
    }

    @Test(arguments: [
        (nil, ExpositionFormat.prometheusText),
        ("text/plain", .prometheusText),
        ("*/*", .prometheusText),
        ("application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1", .openMetrics),
        ("text/plain;q=1, application/openmetrics-text; q=0", .prometheusText),
        ("Application/OpenMetrics-Text", .openMetrics),
    ] as [(String?, ExpositionFormat)])
    func theAcceptHeaderChoosesTheFormat(accept: String?, format: ExpositionFormat) {
        #expect(ExpositionFormat.negotiate(accept: accept) == format)
    }
}
