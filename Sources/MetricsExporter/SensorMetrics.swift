import BridgeConfiguration
import ControlSocket

/// What one scrape exposes, read at the moment of the scrape.
public struct MetricsInput: Sendable {
    public var snapshot: StatusSnapshot
    /// Values sent per characteristic UUID (`2A37`) since the daemon started, every central included.
    public var notificationsSent: [String: Int64]
    public var process: ProcessMetrics.Reading?
    /// Seconds since the Unix epoch, for the time of each sensor's newest reading.
    public var wallClockSeconds: Double

    public init(snapshot: StatusSnapshot, notificationsSent: [String: Int64], process: ProcessMetrics.Reading?, wallClockSeconds: Double) {
        self.snapshot = snapshot
        self.notificationsSent = notificationsSent
        self.process = process
        self.wallClockSeconds = wallClockSeconds
    }
}

/// The daemon's metrics, named as the Prometheus naming guide and node_exporter's hardware
/// sensors have them: base units, ratios rather than percentages, `_total` on counters.
/// A sensor that is not reading has no value series (never an old value) and `blesensor_sensor_up 0`.
public enum SensorMetrics {
    /// Each value family: its quantity in `SensorStatus.readings`, and the factor into its unit.
    struct ValueFamily {
        let name: String
        let quantity: String
        /// What the reading is divided by to reach the family's unit (100: percent to ratio).
        let divisor: Double
        let help: String

        /// The reading in this family's unit (a temperature is °C whatever unit status shows).
        func value(of reading: QuantityReading) -> Double { reading.measuredValue / divisor }
    }

    static let valueFamilies = [
        ValueFamily(name: "blesensor_temperature_celsius", quantity: "temperature", divisor: 1,
                    help: "Temperature in degrees Celsius (body temperature only for sensors listed under health-sensors)."),
        ValueFamily(name: "blesensor_humidity_ratio", quantity: "humidity", divisor: 100, help: "Relative humidity, 0 to 1."),
        ValueFamily(name: "blesensor_pressure_pascals", quantity: "pressure", divisor: 1, help: "Air pressure in pascals."),
        ValueFamily(name: "blesensor_battery_level_ratio", quantity: "battery-level", divisor: 100, help: "Battery state of charge, 0 to 1."),
        ValueFamily(name: "blesensor_heart_rate_beats_per_minute", quantity: "heart-rate", divisor: 1,
                    help: "Heart rate in beats per minute (not a base unit: beats per minute is how heart rate is read). Health data, opt-in."),
        ValueFamily(name: "blesensor_spo2_ratio", quantity: "spo2", divisor: 100, help: "Blood oxygen saturation, 0 to 1. Health data, opt-in."),
    ]

    /// Every metric family name the daemon can expose (DashboardTests checks the shipped dashboard's
    /// queries against these).
    public static let familyNames: [String] = [
        "blesensor_build_info", "blesensor_advertising", "blesensor_centrals_connected", "blesensor_bonds",
        "blesensor_notifications_sent_total", "blesensor_sensor_up", "blesensor_sensor_reads_total",
        "blesensor_sensor_read_failures_total", "blesensor_sensor_last_reading_timestamp_seconds",
    ] + valueFamilies.map(\.name) + [
        "blesensor_exporter_up", "blesensor_exporter_messages_sent_total", "blesensor_exporter_messages_dropped_total",
    ] + ProcessMetrics.familyNames

    public static func families(_ input: MetricsInput, exported: ExportedSensors, version: String) -> [MetricFamily] {
        let snapshot = input.snapshot
        var families = [
            MetricFamily(name: "blesensor_build_info", kind: .info, help: "The running blesensord's version.",
                         samples: [.init(labels: [("version", version)], value: 1)]),
            MetricFamily(name: "blesensor_advertising", kind: .gauge, help: "1 while the daemon advertises, else 0.",
                         samples: [.init(value: snapshot.advertising ? 1 : 0)]),
            MetricFamily(name: "blesensor_centrals_connected", kind: .gauge, help: "Centrals connected now.",
                         samples: [.init(value: Double(snapshot.centrals.count))]),
        ]
        if let bonds = snapshot.bonds {
            families.append(MetricFamily(name: "blesensor_bonds", kind: .gauge, help: "Bonded centrals in the bond store.",
                                         samples: [.init(value: Double(bonds.count))]))
        }
        families.append(MetricFamily(
            name: "blesensor_notifications_sent_total", kind: .counter,
            help: "Characteristic values notified or indicated to centrals since start, by characteristic UUID.",
            samples: input.notificationsSent.sorted { $0.key < $1.key }.map { .init(labels: [("characteristic", $0.key)], value: Double($0.value)) }))

        let sensors = snapshot.sensors.filter { exported.contains($0.name) }
        func labels(_ sensor: SensorStatus) -> [(String, String)] { [("sensor", sensor.name), ("driver", sensor.driver)] }
        families.append(MetricFamily(name: "blesensor_sensor_up", kind: .gauge,
                                     help: "1 while the sensor answers (ok, paused, no signal), 0 while it fails or before its first read.",
                                     samples: sensors.map { .init(labels: labels($0), value: isUp($0) ? 1 : 0) }))
        families.append(MetricFamily(name: "blesensor_sensor_reads_total", kind: .counter, help: "Successful reads since start.",
                                     samples: sensors.map { .init(labels: labels($0), value: Double($0.reads)) }))
        families.append(MetricFamily(name: "blesensor_sensor_read_failures_total", kind: .counter, help: "Failed reads since start.",
                                     samples: sensors.map { .init(labels: labels($0), value: Double($0.failures)) }))
        let current = sensors.filter(hasCurrentValues)
        families.append(MetricFamily(
            name: "blesensor_sensor_last_reading_timestamp_seconds", kind: .gauge, help: "When the sensor's newest reading was taken, in Unix time.",
            samples: current.compactMap { sensor in
                sensor.ageSeconds.map { .init(labels: labels(sensor), value: (input.wallClockSeconds - $0).rounded(toPlaces: 3)) }
            }))
        for family in valueFamilies {
            let samples: [MetricFamily.Sample] = current.flatMap { sensor in
                sensor.readings.filter { $0.quantity == family.quantity && $0.value.isFinite }
                    .map { MetricFamily.Sample(labels: labels(sensor), value: family.value(of: $0)) }
            }
            if !samples.isEmpty { families.append(MetricFamily(name: family.name, kind: .gauge, help: family.help, samples: samples)) }
        }

        let exporters = snapshot.exporters ?? []
        if !exporters.isEmpty {
            func label(_ exporter: ExporterStatus) -> [(String, String)] { [("exporter", exporter.name)] }
            families.append(MetricFamily(name: "blesensor_exporter_up", kind: .gauge, help: "1 while the exporter works (MQTT connected, broadcasting, listening).",
                                         samples: exporters.map { .init(labels: label($0), value: $0.state == .running ? 1 : 0) }))
            families.append(MetricFamily(name: "blesensor_exporter_messages_sent_total", kind: .counter,
                                         help: "Messages the exporter handed on: MQTT publishes, advertisement updates, scrapes answered.",
                                         samples: exporters.map { .init(labels: label($0), value: Double($0.sent)) }))
            families.append(MetricFamily(name: "blesensor_exporter_messages_dropped_total", kind: .counter,
                                         help: "Readings the exporter gave up (replaced while its peer was away, refused).",
                                         samples: exporters.map { .init(labels: label($0), value: Double($0.dropped)) }))
        }
        if let process = input.process { families += ProcessMetrics.families(process) }
        return families
    }

    static func isUp(_ sensor: SensorStatus) -> Bool {
        switch sensor.state {
        case .ok, .paused, .noSignal: return true
        case .failed, .starting: return false
        }
    }

    /// A paused sensor's values are its last ambient ones, still what its characteristics hold;
    /// a failed or silent one has none worth exposing.
    static func hasCurrentValues(_ sensor: SensorStatus) -> Bool {
        sensor.state == .ok || sensor.state == .paused
    }
}

extension Double {
    func rounded(toPlaces places: Int) -> Double {
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        return (self * scale).rounded() / scale
    }
}
